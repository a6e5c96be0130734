import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../infra/paths';
import { type LocalGitHub } from '../emulators/local-github';
import { localGitHubWithIdentities, WRITE_TOKEN } from '../activities/github/test-support';
import { type GitHubIdentities } from '../activities/github/identity';
import { createSandboxActivities, createSandboxHost } from '../activities/sandbox';
import { requireBubblewrap } from '../activities/sandbox/test-support';
import { WorkspaceGit } from '../activities/sandbox/workspace-git';
import { createUnitWorkspaceActivities } from '../activities/units/unit-workspace';

jest.setTimeout(240_000);

/**
 * Issue 17 item 1, in the sandbox: a unit's checkout and commit run as scripts inside the
 * workspace's sandbox, started by a worker that is SIGKILLed at moments spread over the whole
 * step (its git dies with it). Then the same activity runs here, in another worker process's
 * stead, to success with whatever the kill left. A retry must never meet a broken checkout.
 */
describe('unit workspace git survives a SIGKILL of its worker at any moment', () => {
  let dir: string;
  let github: LocalGitHub;
  let identities: GitHubIdentities;
  let baseSha: string;
  let branchSha: string;
  const KILLS = 10;

  beforeAll(async () => {
    await requireBubblewrap();
    dir = mkdtempSync(join(tmpdir(), 'switchboard-workspace-kill-'));
    ({ github, identities } = await localGitHubWithIdentities());
    github.createRepo('acme', 'app', { 'README.md': '# app\n' });
    baseSha = github.commit('acme/app', 'main', { 'base.txt': 'base\n' }, 'base');
    branchSha = github.commit('acme/app', 'switchboard/unit-1', { 'unit.txt': 'round 1\n' }, 'round 1');
    writeFileSync(join(dir, 'child.js'), CHILD.replaceAll('@DIST@', join(projectRoot(), 'dist')));
  });
  afterAll(async () => {
    await github?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The activities as this test's own "worker" runs them, on a data dir the killed child used. */
  function worker(dataDir: string) {
    const deps = { dataDir, gitBaseUrl: github.gitUrl, identityToken: async () => WRITE_TOKEN };
    const host = createSandboxHost(deps);
    return {
      units: createUnitWorkspaceActivities({ git: new WorkspaceGit(host, github.gitUrl), identities }),
      sandbox: createSandboxActivities(deps, host),
      close: () => host.shutDoors(),
    };
  }
  const prepareInput = (branch: string) => ({ workspaceKey: 'unit-1', repo: 'acme/app', branch, base: 'main', identity: 'write' as const });
  const state = async (sandbox: ReturnType<typeof worker>['sandbox']) =>
    (
      await sandbox.bash({
        workspace: { key: 'unit-1', network: false },
        command: 'git rev-parse HEAD; git status --porcelain; git config remote.origin.url; ls -a | grep -c "^.git-" || true',
      })
    ).output;

  /** Runs one activity in a child worker process; kills it `killAfterMs` after the activity began (undefined: never). */
  function runChild(dataDir: string, op: string, input: unknown, killAfterMs?: number) {
    const child = spawn(process.execPath, [join(dir, 'child.js'), dataDir, github.gitUrl, op, JSON.stringify(input)], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: dir },
    });
    let output = '';
    let began = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (!began && output.includes('began')) {
        began = Date.now();
        if (killAfterMs !== undefined) setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return new Promise<{ signal: string | null; code: number | null; ms: number; output: string }>((resolve) => {
      child.on('close', (code, signal) => resolve({ code, signal, ms: began ? Date.now() - began : 0, output }));
    });
  }

  test('preparing: killed throughout a first and a repeated preparation, then run to success', async () => {
    const probe = await runChild(join(dir, 'probe'), 'prepareUnitWorkspace', prepareInput('switchboard/unit-1'));
    expect({ code: probe.code, output: probe.output.replace(/began\n/, '') }).toEqual({ code: 0, output: '' });
    let killed = 0;
    for (let step = 0; step < KILLS; step += 1) {
      for (const repeated of [false, true]) {
        const dataDir = join(dir, `prepare-${step}-${repeated}`);
        const local = worker(dataDir);
        try {
          // A repeated preparation (the next round) starts from a whole checkout of another branch.
          if (repeated) await local.units.prepareUnitWorkspace(prepareInput('switchboard/other'));
          // The worker that runs the step is the only one alive on this data dir, as after a restart.
          local.close();
          const ended = await runChild(dataDir, 'prepareUnitWorkspace', prepareInput('switchboard/unit-1'), (probe.ms * step) / KILLS);
          if (ended.signal === 'SIGKILL') killed += 1;
          else expect(ended).toMatchObject({ code: 0 });
          const ws = await local.units.prepareUnitWorkspace(prepareInput('switchboard/unit-1'));
          expect(ws).toMatchObject({ headSha: branchSha, baseSha });
          expect(await state(local.sandbox)).toBe(`${branchSha}\n${github.gitUrl}/acme/app.git\n0\n`);
        } finally {
          local.close();
        }
      }
    }
    expect(killed).toBeGreaterThanOrEqual(KILLS);
    const last = worker(join(dir, `prepare-${KILLS - 1}-true`));
    // A branch that does not exist yet starts from the base.
    expect(await last.units.prepareUnitWorkspace(prepareInput('switchboard/new'))).toMatchObject({ headSha: baseSha, baseSha });
    last.close();
  });

  test('committing: killed throughout the commit, then the commit lands exactly once', async () => {
    const dataDir = join(dir, 'commit');
    const local = worker(dataDir);
    try {
      const ws = await local.units.prepareUnitWorkspace(prepareInput('switchboard/unit-1'));
      const sh = (command: string) => local.sandbox.bash({ workspace: { key: 'unit-1', network: false }, command });
      await sh('echo probe > change.txt');
      local.close();
      const probe = await runChild(dataDir, 'commitWorkspace', { workspaceKey: 'unit-1', message: 'probe', since: branchSha });
      expect(probe.code).toBe(0);
      for (let step = 0; step < KILLS; step += 1) {
        await local.units.prepareUnitWorkspace(prepareInput('switchboard/unit-1'));
        await sh(`echo ${step} > change.txt`);
        const input = { workspaceKey: 'unit-1', message: 'round 2', since: ws.headSha };
        local.close();
        await runChild(dataDir, 'commitWorkspace', input, (probe.ms * step) / KILLS);
        const commit = await local.units.commitWorkspace(input);
        expect(commit.changed).toBe(true);
        const after = await sh(`git rev-list --count ${ws.headSha}..HEAD; git show HEAD:change.txt; git status --porcelain`);
        expect(after.output).toBe(`1\n${step}\n`);
      }
    } finally {
      local.close();
    }
  });
});

/** One unit workspace activity in a worker process of its own (no Temporal, no heartbeats), as a worker would run it. */
const CHILD = `
const [dataDir, gitUrl, op, input] = process.argv.slice(2);
const { createSandboxHost } = require('@DIST@/activities/sandbox');
const { WorkspaceGit } = require('@DIST@/activities/sandbox/workspace-git');
const { createUnitWorkspaceActivities } = require('@DIST@/activities/units/unit-workspace');
const host = createSandboxHost({ dataDir, gitBaseUrl: gitUrl, identityToken: async () => '${WRITE_TOKEN}' });
const identities = { tokenFor: async () => '${WRITE_TOKEN}', gitRemote: (repo) => gitUrl + '/' + repo + '.git' };
const activities = createUnitWorkspaceActivities({ git: new WorkspaceGit(host, gitUrl), identities });
host.isolationCheck().then(() => {
  process.stdout.write('began\\n');
  return activities[op](JSON.parse(input));
}).then(
  () => process.exit(0),
  (error) => { console.error(error); process.exit(1); },
);
`;
