import { createServer, type Server } from 'node:net';
import { startLocalGitHub, type LocalGitHub } from '.';
import { startLocalCi, type LocalCi } from './ci';

const PACKAGE = JSON.stringify({ name: 'sum', private: true, scripts: { test: 'node --test' } });
const SUM = 'module.exports = (a, b) => a - b;\n';
const TEST =
  "const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => assert.equal(require('../sum')(2, 2), 4));\n";

describe('the local GitHub’s CI', () => {
  let github: LocalGitHub;
  let ci: LocalCi;
  const events: Array<{ action: string; status: string; conclusion: string | null }> = [];

  beforeAll(async () => {
    github = await startLocalGitHub({ tokens: { read: [], write: ['w'] } });
    github.webhooks.subscribe((event, payload) => {
      const run = (payload as { action: string; check_run?: { status: string; conclusion: string | null } }).check_run;
      if (event === 'check_run' && run) events.push({ action: (payload as { action: string }).action, ...run });
    });
    github.createRepo('acme', 'sum', { 'package.json': PACKAGE, 'sum.js': SUM, 'test/sum.test.js': TEST });
    ci = startLocalCi(github, { command: 'npm test' });
  });
  afterAll(async () => {
    await ci.close();
    await github.close();
  });

  const openPull = async (branch: string, files: Record<string, string>) => {
    const sha = github.commit('acme/sum', branch, files);
    const response = await fetch(`${github.apiUrl}/repos/acme/sum/pulls`, {
      method: 'POST',
      headers: { authorization: 'token w', 'content-type': 'application/json' },
      body: JSON.stringify({ head: branch, base: 'main', title: branch }),
    });
    expect(response.status).toBe(201);
    await ci.idle();
    return sha;
  };

  it('runs the repository’s tests on an opened pull request’s head and reports a failing check run with the log', async () => {
    const sha = await openPull('broken', { 'README.md': 'still broken\n' });
    const [run] = github.state.repo('acme', 'sum')!.checkRuns.get(sha)!;
    expect(run).toMatchObject({ name: 'test', status: 'completed', conclusion: 'failure' });
    expect(run.output?.text).toMatch(/not ok 1 - adds/);
    expect(run.output?.summary).toContain('`npm test` failed on');
    expect(events.slice(-2).map((event) => `${event.action}:${event.status}:${event.conclusion}`)).toEqual([
      'created:in_progress:null',
      'completed:completed:failure',
    ]);
  });

  it('passes on a head whose tests pass, once per commit', async () => {
    const sha = await openPull('fixed', { 'sum.js': 'module.exports = (a, b) => a + b;\n' });
    expect(github.state.repo('acme', 'sum')!.checkRuns.get(sha)).toEqual([
      expect.objectContaining({ status: 'completed', conclusion: 'success' }),
    ]);
    // A redelivered event for the same head starts nothing.
    const runs = ci.runs.length;
    github.webhooks.emit('pull_request', { action: 'synchronize', repository: { full_name: 'acme/sum' }, pull_request: { head: { sha } } });
    await ci.idle();
    expect(ci.runs).toHaveLength(runs);
  });

  it('runs isolated when bubblewrap works here: no network, not even the host’s loopback', async () => {
    const listener: Server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as { port: number }).port;
    const probe = `require('net').connect(${port}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(7));`;
    try {
      await openPull('probe', { 'package.json': JSON.stringify({ name: 'sum', scripts: { test: `node -e "${probe}"` } }) });
      const run = ci.runs[ci.runs.length - 1];
      // Without bubblewrap the run says so in its summary and reaches the port; with it, it cannot.
      expect(run.conclusion).toBe(run.isolated ? 'failure' : 'success');
      if (!run.isolated) expect(github.state.repo('acme', 'sum')!.checkRuns.get(run.sha)![0].output?.summary).toContain('unisolated');
    } finally {
      listener.close();
    }
  });
});
