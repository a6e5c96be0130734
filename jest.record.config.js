// `npm run record-histories`: the recorder in test/record/ drives real workflows and writes
// test/histories/*.json for test/replay.test.ts (docs/versioning.md). Not part of `npm test`.
const base = require('./jest.config.js');

const { displayName: _name, testMatch: _match, ...common } = base.projects[1];

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 180_000,
  globalSetup: base.globalSetup,
  globalTeardown: base.globalTeardown,
  projects: [{ ...common, displayName: 'record', testMatch: ['<rootDir>/test/record/*.record.ts'] }],
};
