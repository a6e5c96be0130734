// Jest runs TypeScript through SWC. The Octokit packages (and linkedom's parsers) are ESM-only, so they are
// transformed to CommonJS here; at run time Node 20.19+ loads them with require(esm).
const esmPackages = [
  '@octokit',
  'universal-user-agent',
  'before-after-hook',
  'universal-github-app-jwt',
  'fast-content-type-parse',
  'toad-cache',
  'json-with-bigint',
  'content-type',
  // linkedom's DOM (web_fetch) stands on these ESM-only packages.
  'css-select',
  'css-what',
  'boolbase',
  'domutils',
  'dom-serializer',
  'domhandler',
  'domelementtype',
  'entities',
  'nth-check',
  'htmlparser2',
  'cssomnom',
].join('|');

const swc = ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }];
const swcJs = ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'ecmascript' } }, module: { type: 'commonjs' } }];

const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc, '^.+\\.m?js$': swcJs },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages})/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  // moto (the S3 server the claim-check store's tests start) is installed there by pip.
  modulePathIgnorePatterns: ['<rootDir>/.moto/'],
  // Exports only an `import` condition, which Jest's CommonJS resolver does not follow.
  moduleNameMapper: { '^@octokit/webhooks-methods$': '<rootDir>/node_modules/@octokit/webhooks-methods/dist-node/index.js' },
};

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60_000,
  // Most suites wait on Temporal, git and child processes rather than the CPU, so two workers on a
  // two-core machine finish in about half the time (Jest's default is cores - 1).
  maxWorkers: 2,
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{agents,tools,workflows,activities,server,infra,emulators,cli}/**/*.test.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
    },
  ],
};
