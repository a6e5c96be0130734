// `npm run bench`: the benchmark suite (test/bench/*.bench.ts), never part of `npm test`.
const base = require('./jest.config.js');
const { testMatch: _unused, displayName: _name, ...common } = base.projects[1];

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 30 * 60_000,
  globalSetup: base.globalSetup,
  globalTeardown: base.globalTeardown,
  ...common,
  testMatch: ['<rootDir>/test/bench/**/*.bench.ts'],
};
