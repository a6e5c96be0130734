#!/usr/bin/env node
/**
 * Checks the Debian packages Switchboard and its tests need (listed once, in
 * system-packages.json) and prints the exact command that installs the missing ones.
 *
 *   node scripts/check-system.js           one line per missing package and the apt command; exit 1 if any
 *   node scripts/check-system.js --warn    the same, but exit 0 (npm install runs it)
 *   node scripts/check-system.js --names   the package names, for `apt-get install -y $(…)`
 *   node scripts/check-system.js --json    every package with `found` (switchboard doctor reads it)
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const PACKAGES = JSON.parse(fs.readFileSync(path.join(__dirname, 'system-packages.json'), 'utf8'));

/** The command's path on PATH (or the absolute path itself, when the package must provide exactly that file), or undefined. */
function which(command) {
  if (path.isAbsolute(command)) {
    try {
      fs.accessSync(command, fs.constants.X_OK);
      return command;
    } catch {
      return undefined;
    }
  }
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here; try the next folder.
    }
  }
  return undefined;
}

/** `apt-get install -y …`, with sudo unless this process is root. */
function installCommand(names) {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  return `${root ? '' : 'sudo '}apt-get install -y ${names.join(' ')}`;
}

function main() {
  const args = process.argv.slice(2);
  if (args.includes('--names')) return void console.log(PACKAGES.map((p) => p.package).join(' '));
  const checked = PACKAGES.map((p) => ({ ...p, found: which(p.command) ?? null }));
  if (args.includes('--json')) {
    const missing = checked.filter((p) => !p.found).map((p) => p.package);
    return void console.log(JSON.stringify({ packages: checked, install: missing.length ? installCommand(missing) : null }));
  }
  const missing = checked.filter((p) => !p.found);
  if (missing.length === 0) return void console.log(`switchboard: system packages present (${checked.map((p) => p.package).join(', ')})`);
  for (const p of missing) console.warn(`switchboard: missing ${p.command} (Debian package ${p.package}), needed for ${p.for}`);
  console.warn(`switchboard: install with:  ${installCommand(missing.map((p) => p.package))}`);
  if (!args.includes('--warn')) process.exitCode = 1;
}

main();
