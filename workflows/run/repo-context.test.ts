import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RepoSettingsResult } from '../../activities/github';
import type { BashResult } from '../contracts/sandbox';
import { builtinCatalog, getAgent, resolveProfile } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import type { RunInput } from '../contracts';
import { CallLog } from '../test-support';
import { pathsNamed, RepoContextLoader, setupScript } from './repo-context';
import { RunState } from './run-state';

const SETTINGS: RepoSettingsResult = {
  repo: 'acme/app',
  file: 'found',
  problems: [],
  settings: {
    review: { triggers: [], debounceSeconds: 60, severity: 'major' },
    issues: { assign: true },
    setup: { commands: ['npm ci', 'npm run build'], lockfiles: ['package-lock.json'], timeoutSeconds: 300 },
  },
};

function world(options: { checkout: boolean; bash?: Partial<BashResult>; request?: string }) {
  const log = new CallLog();
  const profile = resolveProfile({
    agent: getAgent(builtinCatalog(), 'coding')!,
    config: defaultAgentsConfig({}),
    directives: { repo: 'acme/app' },
  });
  const input: RunInput = {
    threadId: 'unit:acme/app:x',
    profile,
    system: 'The agent prompt.',
    request: options.request ?? 'Fix src/total.js and test/total.test.js.',
    requester: { id: 'ada', surface: 'cli' },
    context: [],
    replyTarget: { kind: 'cli' },
  };
  const state = new RunState(input, 0);
  const loader = new RepoContextLoader({
    state,
    workspace: { key: 'unit:acme/app:x', network: true },
    checkout: options.checkout,
    activities: {
      settings: { repoSettings: log.fn('repoSettings', () => SETTINGS) },
      instructions: {
        loadInstructions: log.fn('loadInstructions', () => ({
          source: options.checkout ? ('checkout' as const) : ('github' as const),
          files: [
            { path: 'src/AGENTS.md', text: 'Money is kept in cents.', chars: 23 },
            { path: 'AGENTS.md', text: 'Run npm test before you commit.', chars: 31 },
          ],
          skipped: [],
        })),
      },
      shell: {
        bash: log.fn('bash', () => ({
          exitCode: 0,
          output: 'switchboard-setup: running (k)\nadded 12 packages',
          truncated: false,
          timedOut: false,
          durationMs: 4_000,
          ...options.bash,
        })),
      },
    },
    touchCard: () => undefined,
  });
  return { log, state, loader };
}

describe('a run’s repository context', () => {
  it('puts the instruction files in the system prompt once, and runs the setup in the checkout with the run’s grant', async () => {
    const { log, state, loader } = world({ checkout: true });
    const before = state.system;
    await loader.load('acme/app');
    expect(before).toBe('The agent prompt.');
    expect(state.system).toMatch(/^The agent prompt\.\n\n## Repository instructions\n/);
    expect(state.system).toContain('### src/AGENTS.md\nMoney is kept in cents.');
    expect(state.system.indexOf('src/AGENTS.md')).toBeLessThan(state.system.indexOf('### AGENTS.md'));
    expect(log.inputs('loadInstructions')[0]).toMatchObject({
      repo: 'acme/app',
      paths: ['src/total.js', 'test/total.test.js'],
      workspace: { key: 'unit:acme/app:x' },
    });
    const [bash] = log.inputs('bash');
    expect(bash).toMatchObject({ timeoutMs: 300_000, identity: 'write', repo: 'acme/app', agent: 'coding', machine: 'repo-resident' });
    expect(state.status('r', 0)).toMatchObject({
      instructions: ['src/AGENTS.md', 'AGENTS.md'],
      setup: { state: 'ran', commands: 2, exitCode: 0, durationMs: 4_000, output: 'added 12 packages' },
    });
    expect(state.messages[0]).toMatchObject({
      role: 'user',
      text: expect.stringContaining("(setup) The repository's setup ran"),
    });
    // The carry keeps it, so a run continued as new sends the same system prompt.
    expect(new RunState({ ...state.input, carry: state.carry() }, 0).system).toBe(state.system);
  });

  it('tells the model a setup that failed or was done before, and runs none without a checkout', async () => {
    const failed = world({ checkout: true, bash: { exitCode: 2, output: 'switchboard-setup: running (k)\nnpm ERR! missing lockfile' } });
    await failed.loader.load('acme/app');
    expect(failed.state.status('r', 0).setup).toMatchObject({ state: 'failed', exitCode: 2 });
    expect(failed.state.messages[0]).toMatchObject({ text: expect.stringMatching(/failed \(exit 2\)[\s\S]*npm ERR! missing lockfile/) });
    const cached = world({ checkout: true, bash: { output: 'switchboard-setup: done before (k)\n' } });
    await cached.loader.load('acme/app');
    expect(cached.state.status('r', 0).setup).toMatchObject({ state: 'cached' });
    const none = world({ checkout: false });
    await none.loader.load('acme/app');
    expect(none.log.names()).toEqual(['repoSettings', 'loadInstructions']);
    expect(none.log.inputs('loadInstructions')[0]).not.toHaveProperty('workspace');
    expect(none.state.status('r', 0).setup).toBeUndefined();
  });

  it('finds the paths a request names', () => {
    expect(pathsNamed('Fix `src/total.js` (see docs/api.md), not https://x.io/a.js or ../etc/passwd.txt, and README.md')).toEqual([
      'src/total.js',
      'docs/api.md',
    ]);
  });
});

describe('the setup script', () => {
  it('runs once per commands and lockfiles in a workspace, again when a lockfile changes, and marks nothing done after a failure', () => {
    const dir = mkdtempSync(join(tmpdir(), 'setup-script-'));
    const home = join(dir, 'home');
    const run = (script: string) => {
      try {
        return {
          code: 0,
          out: execFileSync('bash', ['-c', script], { cwd: dir, env: { PATH: process.env.PATH, HOME: home }, encoding: 'utf8' }),
        };
      } catch (error) {
        return { code: (error as { status: number }).status, out: String((error as { stdout: string }).stdout) };
      }
    };
    try {
      writeFileSync(join(dir, 'package-lock.json'), '{"v":1}');
      const script = setupScript(['echo installing >> ran.log', "echo 'quoted $HOME'"], ['package-lock.json']);
      expect(run(script)).toEqual({ code: 0, out: expect.stringContaining('quoted $HOME') });
      expect(run(script).out).toMatch(/^switchboard-setup: done before/);
      writeFileSync(join(dir, 'package-lock.json'), '{"v":2}');
      expect(run(script).out).toContain('switchboard-setup: running');
      expect(execFileSync('cat', [join(dir, 'ran.log')], { encoding: 'utf8' })).toBe('installing\ninstalling\n');
      const failing = setupScript(['false', 'echo never'], []);
      expect(run(failing)).toEqual({ code: 1, out: expect.not.stringContaining('never') });
      expect(run(failing).out).not.toContain('done before');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
