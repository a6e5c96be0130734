// Lint rules that hold the architecture: workflow code stays deterministic, promises are
// awaited, and type-only imports say so (so workflows can import activity *types*).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

const nodeBuiltins = [
  'assert',
  'buffer',
  'child_process',
  'cluster',
  'crypto',
  'dgram',
  'dns',
  'events',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'net',
  'os',
  'path',
  'perf_hooks',
  'process',
  'readline',
  'stream',
  'timers',
  'tls',
  'url',
  'util',
  'v8',
  'vm',
  'worker_threads',
  'zlib',
];

// The emulators (local GitHub, local Slack, the offline demo) are for tests, the demo and
// dev-only commands; production never loads them, so a deployment never carries a fake GitHub.
const emulatorsRoom = {
  regex: '(^|/)emulators(/|$)',
  message: 'Production code never imports emulators/ (local GitHub, local Slack, the demo): only tests and the demo do.',
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.temporal/**',
      '.moto/**',
      '.data/**',
      'coverage/**',
      'scripts/**',
      'bin/**',
      'examples/**',
      '*.config.*',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
    },
  },
  // Layout is Prettier's job (npm run format); lint keeps to meaning.
  prettier,
  {
    // Messages, workflow types and failure codes are defined once, in workflows/contracts/, and
    // imported everywhere else: a renamed signal or a changed payload then fails to compile
    // instead of failing at run time. (Test-only workflows in test/fixtures/ define their own.)
    files: ['**/*.ts'],
    ignores: ['workflows/contracts/**', 'test/fixtures/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.property.name=/^(signal|query|executeUpdate|startUpdate|executeUpdateWithStart|signalWithStart)$/][arguments.0.type=/^(Literal|TemplateLiteral)$/]',
          message: 'Name messages and workflow types by their definitions in workflows/contracts, not by string.',
        },
        {
          selector:
            'CallExpression[callee.object.property.name="workflow"][callee.property.name=/^(start|execute)$/][arguments.0.type=/^(Literal|TemplateLiteral)$/]',
          message: 'Start a workflow by its type from workflows/contracts, not by string.',
        },
        {
          selector: 'CallExpression[callee.name=/^(startChild|executeChild)$/][arguments.0.type=/^(Literal|TemplateLiteral)$/]',
          message: 'Start a child by its workflow type from workflows/contracts, not by string.',
        },
        {
          selector:
            'CallExpression[callee.property.name=/^(signalWithStart|executeUpdateWithStart)$/] Property[key.name="signal"][value.type=/^(Literal|TemplateLiteral)$/]',
          message: 'Name the signal by its definition in workflows/contracts, not by string.',
        },
        {
          selector: 'CallExpression[callee.name=/^define(Signal|Query|Update)$/]',
          message: 'Define signals, queries and updates in workflows/contracts (one definition per wire name).',
        },
        {
          selector: 'MemberExpression[object.name="ApplicationFailure"][property.name=/^(create|retryable|nonRetryable)$/]',
          message: 'Raise failures with failure(code, message) from workflows/contracts, so every type is in the one list.',
        },
      ],
    },
  },
  {
    // Production rooms. (The workflow block below repeats the pattern: a later block's
    // no-restricted-imports replaces this one for the files both match.)
    files: ['{workflows,activities,agents,tools,server,infra,cli}/**/*.ts'],
    ignores: ['**/*.test.ts', '**/test-support.ts', '**/test-support/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [emulatorsRoom] }] },
  },
  {
    // workflows/contracts is the floor every other folder stands on: it imports npm packages and
    // its own files only, so importing a contract never pulls in activities, agents or a circle.
    // (The folder has no subfolders: any `..` leaves it.) Its tests may import what they check.
    files: ['workflows/contracts/**/*.ts'],
    ignores: ['workflows/contracts/**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: ':matches(ImportDeclaration, ExportNamedDeclaration, ExportAllDeclaration, ImportExpression)[source.value=/^\\.\\./]',
          message: 'workflows/contracts imports nothing outside itself: move the type down into workflows/contracts instead.',
        },
      ],
    },
  },
  {
    // The workflow sandbox: deterministic code only. Activities are imported as types.
    files: ['workflows/**/*.ts'],
    ignores: ['workflows/**/*.test.ts'],
    rules: {
      // A promise nobody awaits or catches in a workflow rejects unhandled when the workflow is
      // cancelled or an activity fails, and fails every later workflow task: `void` does not
      // count as handling it here.
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false }],
      '@typescript-eslint/no-misused-promises': 'error',
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.flatMap((name) => [
            { name, message: 'Workflow code is deterministic: no Node built-ins. Move the effect to an activity.' },
            { name: `node:${name}`, message: 'Workflow code is deterministic: no Node built-ins. Move the effect to an activity.' },
          ]),
          patterns: [
            {
              group: ['@temporalio/activity', '@temporalio/client', '@temporalio/worker', '@temporalio/testing'],
              message: 'Only @temporalio/workflow and @temporalio/common belong in workflow code.',
            },
            {
              group: ['@octokit/*', '@slack/*', '@anthropic-ai/*', 'openai', 'express', 'pino', 'yaml'],
              message: 'No SDKs or I/O libraries in workflow code: call an activity.',
            },
            {
              // At any depth: workflows/unit/x.ts reaches activities/ as '../../activities/...'.
              regex: '^(\\.\\./)+(activities|infra|server|cli)(/|$)',
              allowTypeImports: true,
              message: 'Workflows import activities as types only, through proxyActivities.',
            },
            emulatorsRoom,
          ],
        },
      ],
      // Long-lived workflows stay thin: handlers, conditions and a loop in the workflow function,
      // each decision in a plain class with its own unit tests (docs/architecture.md "Rooms").
      'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }],
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' },
        { name: 'setInterval', message: 'Use workflow timers.' },
        { name: 'process', message: 'No process access in workflow code.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Use a value from an activity or uuid4() from @temporalio/workflow.' },
      ],
    },
  },
  {
    // The worlds unit tests drive the thread's and the unit's classes in: test support beside the
    // code (no workflow imports them), so they may be long and use the activities' defaults.
    files: ['workflows/**/*-test-world.ts'],
    rules: { 'max-lines-per-function': 'off', 'no-restricted-imports': 'off' },
  },
);
