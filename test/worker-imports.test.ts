import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../infra/paths';
import { testTemporalAddress, uniqueTaskQueue } from './helpers/temporal';

/**
 * A worker-only process (`switchboard worker`) loads what a worker needs and not the front
 * ends: it starts faster and holds less. A require hook records every file the real process
 * loads from start to a polling worker to a clean stop.
 */
const FRONT_END_PACKAGES = [
  '@slack/bolt',
  '@slack/socket-mode',
  '@modelcontextprotocol/sdk',
  'express',
  '@octokit/webhooks',
  'prom-client',
];

const HOOK = `const Module = require('node:module');
const { writeFileSync } = require('node:fs');
const loaded = new Set();
const load = Module._load;
Module._load = function (request, parent, isMain) {
  try { loaded.add(Module._resolveFilename(request, parent, isMain)); } catch {}
  return load.apply(this, arguments);
};
process.on('exit', () => writeFileSync(process.env.LOADED_MODULES_OUT, JSON.stringify([...loaded])));
`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'worker-imports-'));
  writeFileSync(join(dir, 'hook.js'), HOOK);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a worker-only process never loads the front ends (Bolt, the MCP SDK, express)', async () => {
  const out = join(dir, 'loaded.json');
  const child = spawn(process.execPath, ['-r', join(dir, 'hook.js'), join(projectRoot(), 'dist', 'infra', 'worker-main.js')], {
    cwd: projectRoot(),
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      TEMPORAL_ADDRESS: testTemporalAddress(),
      SWITCHBOARD_TASK_QUEUE: uniqueTaskQueue('worker-imports'),
      SWITCHBOARD_DATA_DIR: join(dir, 'data'),
      LOADED_MODULES_OUT: out,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let text = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('SWITCHBOARD_WORKER_READY')) resolve();
    });
    void exited.then(() => reject(new Error(`the worker exited before it was ready:\n${text}`)));
  });
  child.kill('SIGTERM');
  expect(await exited).toBe(0);

  const files = JSON.parse(readFileSync(out, 'utf8')) as string[];
  const packages = new Set(files.flatMap((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1] ?? []));
  // The hook saw the worker's own stack load, so an empty answer below means something.
  expect(packages).toContain('@temporalio/worker');
  expect(packages).toContain('@slack/web-api');
  expect(FRONT_END_PACKAGES.filter((name) => packages.has(name))).toEqual([]);
  expect(files.filter((file) => file.includes(`${join(projectRoot(), 'dist', 'server')}/`))).toEqual([]);
});
