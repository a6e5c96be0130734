#!/usr/bin/env node
/**
 * Provisions what only the tests need: moto's S3 server (the S3 claim-check store's tests start
 * `python3 -m moto.server`), pinned, into `.moto/` from PyPI. `npm test` runs it first (the
 * `pretest` script), as `npm install` provisions Temporal; idempotent, and quiet when moto is
 * already there (in `.moto/` or on the Python path at the pinned version).
 *
 * It never fails `npm test` by itself: without pip or the registry it says how to install moto
 * by hand, and the tests that need it fail naming the same line.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/** The one pin: test/helpers/moto.ts and test/quick-start.test.ts read it from here. */
const MOTO_VERSION = '5.2.1';
const root = path.resolve(__dirname, '..');
const target = path.join(root, '.moto');
const stampFile = path.join(target, 'provisioned.json');
const wanted = `moto[server]==${MOTO_VERSION}`;
const python = process.env.PYTHON || 'python3';

function installedVersion(extraPath) {
  const env = { ...process.env, ...(extraPath ? { PYTHONPATH: [extraPath, process.env.PYTHONPATH].filter(Boolean).join(':') } : {}) };
  const probe = spawnSync(python, ['-c', 'import moto, flask, werkzeug; print(moto.__version__)'], { env, encoding: 'utf8' });
  return probe.status === 0 ? probe.stdout.trim() : undefined;
}

function alreadyProvisioned() {
  try {
    const stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8'));
    if (stamp.pin === wanted && fs.existsSync(path.join(target, 'moto', '__init__.py'))) return '.moto/';
  } catch {
    // No stamp: look on the Python path.
  }
  return installedVersion() === MOTO_VERSION ? 'the Python path' : undefined;
}

function main() {
  if (process.env.SWITCHBOARD_SKIP_PROVISION === '1') return;
  const where = alreadyProvisioned();
  if (where) {
    console.log(`switchboard: moto ${MOTO_VERSION} (the tests' S3 server) is provisioned (${where})`);
    return;
  }
  console.log(`switchboard: provisioning ${wanted} for the tests with ${python} -m pip into .moto/ ...`);
  fs.rmSync(target, { recursive: true, force: true });
  const result = spawnSync(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', target, wanted], {
    stdio: 'inherit',
  });
  if (result.error || result.status !== 0 || installedVersion(target) !== MOTO_VERSION) {
    const why = result.error ? result.error.message : result.status !== 0 ? `pip exited with ${result.status}` : 'moto does not import';
    console.warn(
      [
        `switchboard: could not provision moto (${why}); the S3 claim-check tests will fail until it is there.`,
        `  Install it by hand:  ${python} -m pip install --target .moto "${wanted}"`,
      ].join('\n'),
    );
    return;
  }
  fs.writeFileSync(stampFile, JSON.stringify({ pin: wanted, at: new Date().toISOString() }, null, 2));
  console.log('switchboard: moto ready in .moto/');
}

module.exports = { MOTO_VERSION };
if (require.main === module) main();
