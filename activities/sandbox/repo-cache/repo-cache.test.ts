import { chownSync, lstatSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LocalGitHub } from '../../../emulators/local-github';
import { localGitHubWithIdentities } from '../../github/test-support';
import { type GitHubIdentities } from '../../github/identity';
import { createUnitWorkspaceActivities } from '../../units/unit-workspace';
import { createSandboxActivities, createSandboxHost } from '../index';
import { requireBubblewrap, sandboxFixture } from '../test-support';
import { WorkspaceGit } from '../workspace-git';
import { CACHE_VIEW } from './cache-layout';
import { readMeta } from './cache-store';
import { CACHE_FETCH_SCRIPT } from './cache-scripts';
import { SETUP_RESTORED, setupScript } from '../../../agents/repo-setup';
import { RepoCache } from './repo-cache';

jest.setTimeout(120_000);

/**
 * Issue 35, warm repositories, on the real sandbox and git against the local GitHub: a resident
 * checkout borrows the host's cache of its repository and fetches only what the cache lacks; a cold
 * one never touches it; a cache truncated by hand is evicted and the checkout fetches everything,
 * saying so; no workspace can write the cache, and nothing the cache's sandbox wrote reaches the
 * store unchecked.
 */
describe('the repository cache of a worker host', () => {
  let github: LocalGitHub;
  let identities: GitHubIdentities;
  let fixture: Awaited<ReturnType<typeof sandboxFixture>>;
  let cache: RepoCache;
  let units: ReturnType<typeof createUnitWorkspaceActivities>;
  let counter = 0;

  beforeAll(async () => {
    await requireBubblewrap();
    ({ github, identities } = await localGitHubWithIdentities());
    fixture = await sandboxFixture({ gitBaseUrl: github.gitUrl, identityToken: (scope) => identities.tokenFor(scope) });
    const git = new WorkspaceGit(fixture.host, github.gitUrl);
    cache = new RepoCache({ host: fixture.host, git, settings: { refreshSeconds: 0 } });
    units = createUnitWorkspaceActivities({ git, identities, repoCache: cache });
  });
  afterAll(async () => {
    for (const entry of (await cache?.entries()) ?? []) await fixture.host.release({ key: entry.layout.key, network: true });
    await fixture?.cleanup();
    await github?.close();
  });

  /** A repository with some history, of its own. */
  function repository(): string {
    const name = `cache-${++counter}`;
    github.createRepo('acme', name, { 'README.md': '# app\n' });
    for (let i = 0; i < 5; i += 1) github.commit(`acme/${name}`, 'main', { [`src/f${i}.js`]: `module.exports = ${i};\n` });
    return `acme/${name}`;
  }
  const checkout = (repo: string, key: string, machine = 'repo-resident') =>
    units.prepareUnitWorkspace({ workspaceKey: key, repo, branch: 'switchboard/s', identity: 'write', machine });
  const sh = async (key: string, command: string) =>
    (await fixture.activities.bash({ workspace: { key, network: false }, command })).output;

  test('a second resident checkout fetches only the new objects; the store is sealed; a cold checkout never borrows', async () => {
    const repo = repository();
    const first = fixture.workspace(true).key;
    const one = await checkout(repo, first);
    expect(one).toMatchObject({ cached: true, localObjects: 0 });
    expect(one.cacheNotice).toBeUndefined();
    const layout = cache.layoutOf(repo);
    const meta = (await readMeta(layout.meta))!;
    expect(meta.packs).toHaveLength(1);
    // Sealed: the worker's own files, read-only, in the worker's own folders.
    for (const entry of readdirSync(layout.packs)) {
      const found = lstatSync(join(layout.packs, entry));
      expect({ uid: found.uid, mode: found.mode & 0o777, file: found.isFile() }).toEqual({ uid: 0, mode: 0o444, file: true });
    }
    expect(statSync(layout.objects).uid).toBe(0);
    expect(readdirSync(join(layout.objects, 'info'))).toEqual([]);
    expect(await sh(first, 'cat .git/objects/info/alternates; git log --oneline | wc -l; cat src/f4.js')).toBe(
      `${CACHE_VIEW}\n6\nmodule.exports = 4;\n`,
    );

    // Someone pushes two commits: one new file each (a commit, a tree per folder, a blob).
    github.commit(repo, 'main', { 'src/g1.js': 'one\n' });
    github.commit(repo, 'main', { 'src/g2.js': 'two\n' });
    const second = fixture.workspace(true).key;
    const two = await checkout(repo, second);
    // The cache was refreshed before use, so this checkout fetched nothing at all ...
    expect(two).toMatchObject({ cached: true, localObjects: 0 });
    expect(await sh(second, 'git log --oneline | wc -l; cat src/g2.js')).toBe('8\ntwo\n');
    // ... and with a cache that is not refreshed (within refreshSeconds), exactly the new objects.
    const stale = new RepoCache({
      host: fixture.host,
      git: new WorkspaceGit(fixture.host, github.gitUrl),
      settings: { refreshSeconds: 3_600 },
    });
    const staleUnits = createUnitWorkspaceActivities({ git: new WorkspaceGit(fixture.host, github.gitUrl), identities, repoCache: stale });
    github.commit(repo, 'main', { 'src/g3.js': 'three\n' });
    const third = fixture.workspace(true).key;
    const three = await staleUnits.prepareUnitWorkspace({
      workspaceKey: third,
      repo,
      branch: 'b',
      identity: 'read',
      machine: 'repo-resident',
    });
    // One commit, its root tree, the src/ tree and one blob.
    expect(three).toMatchObject({ cached: true, localObjects: 4 });
    cache = new RepoCache({ host: fixture.host, git: new WorkspaceGit(fixture.host, github.gitUrl), settings: { refreshSeconds: 0 } });
    units = createUnitWorkspaceActivities({ git: new WorkspaceGit(fixture.host, github.gitUrl), identities, repoCache: cache });

    // repo-cold: never the cache, everything fetched.
    const cold = fixture.workspace(true).key;
    const coldCheckout = await checkout(repo, cold, 'repo-cold');
    expect(coldCheckout.cached).toBeUndefined();
    expect(coldCheckout.localObjects).toBeGreaterThan(20);
    expect(await sh(cold, 'test -e .git/objects/info/alternates && echo borrowed; ls /repo-cache 2>&1 | head -1')).toMatch(/No such file/);
  });

  test('no workspace can write the cache: read-only, and not its own', async () => {
    const repo = repository();
    const key = fixture.workspace(true).key;
    await checkout(repo, key);
    const pack = readdirSync(cache.layoutOf(repo).packs).find((entry) => entry.endsWith('.pack'))!;
    const attempts = await sh(
      key,
      [
        `touch ${CACHE_VIEW}/planted 2>&1 | tail -1`,
        `echo x >> ${CACHE_VIEW}/pack/${pack} 2>&1 | tail -1`,
        `mkdir ${CACHE_VIEW}/info/alternates 2>&1 | tail -1`,
        `rm -f ${CACHE_VIEW}/pack/${pack} 2>&1 | tail -1`,
        `mount -o remount,rw ${CACHE_VIEW} >/dev/null 2>&1 && echo remounted || echo remount refused`,
        `grep ' ${CACHE_VIEW} ' /proc/self/mounts | cut -d' ' -f4 | cut -d, -f1`,
      ].join('; '),
    );
    const lines = attempts.trim().split('\n');
    expect(lines.slice(0, 5)).toEqual([
      expect.stringMatching(/planted.*Read-only file system/),
      expect.stringMatching(/Permission denied|Read-only file system/),
      expect.stringMatching(/alternates.*Read-only file system/),
      expect.stringMatching(/Read-only file system/),
      'remount refused',
    ]);
    expect(lines[5]).toBe('ro');
    // Beneath the read-only bind, the store is the worker's (root's, 0755/0444), nothing of the workspace's uid.
    expect(await sh(key, `stat -c '%u %a' ${CACHE_VIEW} ${CACHE_VIEW}/pack/${pack}`)).toBe('65534 755\n65534 444\n');
    const meta = (await readMeta(cache.layoutOf(repo).meta))!;
    expect(statSync(join(cache.layoutOf(repo).packs, pack)).size).toBe(meta.packs[0].packBytes);
    expect(readdirSync(cache.layoutOf(repo).objects).sort()).toEqual(['info', 'pack']);
  });

  test("nothing the cache's fetch left is trusted: its config and hooks never run, its index and metadata never reach the store", async () => {
    const repo = repository();
    await checkout(repo, fixture.workspace(true).key);
    const layout = cache.layoutOf(repo);
    const mirror = join(layout.workspace.work, 'mirror.git');
    const uid = Number(readFileSync(join(layout.workspace.state, 'uid'), 'utf8'));
    // A fetch step that was compromised (simulated: files written right after it, as its uid):
    // the index of the pack it brought replaced by garbage, metadata beside the objects, and a
    // configuration and a hook that would run programs in the next step.
    const plant = (path: string, text: string, mode = 0o644) => {
      writeFileSync(path, text, { mode });
      chownSync(path, uid, uid);
    };
    const planting = new (class extends WorkspaceGit {
      override async script(...args: Parameters<WorkspaceGit['script']>) {
        const ran = await super.script(...args);
        if (args[1] === CACHE_FETCH_SCRIPT) {
          for (const entry of readdirSync(join(mirror, 'objects', 'pack')))
            if (entry.endsWith('.idx')) plant(join(mirror, 'objects', 'pack', entry), 'not an index');
          plant(join(mirror, 'objects', 'info', 'commit-graph'), 'lies');
          plant(join(mirror, 'config'), '[core]\n\tfsmonitor = touch /workspace/fsmonitor-ran\n');
          plant(join(mirror, 'hooks', 'reference-transaction'), '#!/bin/sh\ntouch /workspace/hook-ran\n', 0o755);
        }
        return ran;
      }
    })(fixture.host, github.gitUrl);
    const planted = createUnitWorkspaceActivities({
      git: planting,
      identities,
      repoCache: new RepoCache({ host: fixture.host, git: planting, settings: { refreshSeconds: 0 } }),
    });
    github.commit(repo, 'main', { 'src/later.js': 'later\n' });
    const key = fixture.workspace(true).key;
    expect(
      await planted.prepareUnitWorkspace({ workspaceKey: key, repo, branch: 'x', identity: 'read', machine: 'repo-resident' }),
    ).toMatchObject({
      cached: true,
      localObjects: 0,
    });
    expect(await sh(key, 'cat src/later.js')).toBe('later\n');
    expect(readdirSync(layout.workspace.work).filter((entry) => entry.endsWith('-ran'))).toEqual([]);
    // Every sealed index is one git computed from its pack's bytes; nothing else is in the store.
    const meta = (await readMeta(layout.meta))!;
    expect(meta.packs).toHaveLength(2);
    expect(readdirSync(layout.packs).sort()).toEqual(meta.packs.flatMap((pack) => [`${pack.name}.idx`, `${pack.name}.pack`]).sort());
    expect(readdirSync(join(layout.objects, 'info'))).toEqual([]);
    for (const pack of meta.packs)
      expect(
        readFileSync(join(layout.packs, `${pack.name}.idx`))
          .subarray(0, 4)
          .toString('hex'),
      ).toBe('ff744f63');
  });

  test('a cache truncated by hand: the checkout fetches everything directly and says so; the next builds it again', async () => {
    const repo = repository();
    await checkout(repo, fixture.workspace(true).key);
    const layout = cache.layoutOf(repo);
    const pack = readdirSync(layout.packs).find((entry) => entry.endsWith('.pack'))!;
    truncateSync(join(layout.packs, pack), 100);
    const key = fixture.workspace(true).key;
    const fell = await checkout(repo, key);
    expect(fell.cacheNotice).toMatch(
      new RegExp(`cache of ${repo} on this worker host was corrupt \\(${pack} has 100 bytes.*fetched everything directly`),
    );
    expect(fell.cached).toBe(false);
    expect(fell.localObjects).toBeGreaterThan(20);
    expect(await sh(key, 'git log --oneline | wc -l')).toBe('6\n');
    // Evicted whole; the next resident checkout builds it again and borrows.
    const again = await checkout(repo, fixture.workspace(true).key);
    expect(again).toMatchObject({ cached: true, localObjects: 0 });
    expect(again.cacheNotice).toBeUndefined();
  });

  test('setup results: kept from a first run in an untouched workspace, copied into the next resident checkout, never from a used one', async () => {
    const repo = `acme/setup-${++counter}`;
    github.createRepo('acme', repo.split('/')[1], { '.gitignore': 'deps/\n', 'lock.json': '{"v":1}\n', 'README.md': 'x\n' });
    const commands = ['mkdir -p deps && echo built > deps/out.txt', 'echo tool > ~/.tool-cache', 'echo ran >> ~/ran.log'];
    const setup = { repo, commands, lockfiles: ['lock.json'] };
    const runSetup = (key: string) =>
      fixture.activities.bash({
        workspace: { key, network: true },
        command: setupScript(commands, ['lock.json']),
        setup,
        // Only a run holding the write identity in a trusted checkout keeps its result (setup-store.test.ts).
        identity: 'write',
        machine: 'repo-resident',
      });
    const first = fixture.workspace(true).key;
    await checkout(repo, first);
    const ran = await runSetup(first);
    expect(ran.output).toMatch(/^switchboard-setup: running/);
    const meta = (await readMeta(cache.layoutOf(repo).meta))!;
    expect(meta.setups).toEqual([expect.objectContaining({ key: expect.stringMatching(/^[0-9a-f]{32}$/), bytes: expect.any(Number) })]);
    // The next resident checkout: copied in, not run (its log has no line of its own), and noted as done there.
    const second = fixture.workspace(true).key;
    await checkout(repo, second);
    const restored = await runSetup(second);
    expect(restored.output).toBe(`${SETUP_RESTORED} (${meta.setups[0].key})\n`);
    expect(await sh(second, 'cat deps/out.txt ~/.tool-cache; wc -l < ~/ran.log; git status --short')).toBe('built\ntool\n1\n');
    expect((await runSetup(second)).output).toMatch(/^switchboard-setup: done before/);
    // A workspace where a command ran before its setup gives nothing to others.
    const used = fixture.workspace(true).key;
    await checkout(repo, used);
    await sh(used, 'echo changed > lock.json');
    expect((await runSetup(used)).output).toMatch(/^switchboard-setup: running/);
    expect((await readMeta(cache.layoutOf(repo).meta))!.setups).toHaveLength(1);
    // repo-cold never gets them.
    const cold = fixture.workspace(true).key;
    await checkout(repo, cold, 'repo-cold');
    expect((await runSetup(cold)).output).toMatch(/^switchboard-setup: running/);
  });

  test('a restarted worker uses the cache on disk after checking it against its seals', async () => {
    const repo = repository();
    await checkout(repo, fixture.workspace(true).key);
    const host = createSandboxHost({
      dataDir: fixture.dataDir,
      gitBaseUrl: github.gitUrl,
      identityToken: (scope) => identities.tokenFor(scope),
    });
    const git = new WorkspaceGit(host, github.gitUrl);
    const restarted = createUnitWorkspaceActivities({ git, identities, repoCache: new RepoCache({ host, git }) });
    const sandbox = createSandboxActivities({ dataDir: fixture.dataDir, gitBaseUrl: github.gitUrl }, host);
    const key = fixture.workspace(true).key;
    try {
      expect(
        await restarted.prepareUnitWorkspace({ workspaceKey: key, repo, branch: 'x', identity: 'read', machine: 'repo-resident' }),
      ).toMatchObject({
        cached: true,
        localObjects: 0,
      });
      // The seal is what is checked: a pack changed in place (same size) is found at the restart's first use.
      const layout = cache.layoutOf(repo);
      const pack = readdirSync(layout.packs).find((entry) => entry.endsWith('.pack'))!;
      const bytes = readFileSync(join(layout.packs, pack));
      bytes[bytes.length - 30] ^= 0xff;
      writeFileSync(join(layout.packs, pack), bytes);
      const host2 = createSandboxHost({
        dataDir: fixture.dataDir,
        gitBaseUrl: github.gitUrl,
        identityToken: (scope) => identities.tokenFor(scope),
      });
      const git2 = new WorkspaceGit(host2, github.gitUrl);
      const third = createUnitWorkspaceActivities({ git: git2, identities, repoCache: new RepoCache({ host: host2, git: git2 }) });
      const found = await third.prepareUnitWorkspace({
        workspaceKey: fixture.workspace(true).key,
        repo,
        branch: 'x',
        identity: 'read',
        machine: 'repo-resident',
      });
      expect(found.cacheNotice).toMatch(/corrupt \(.*is not the file that was sealed\)/);
      host2.shutDoors();
    } finally {
      await sandbox.releaseWorkspace({ workspace: { key, network: true } });
      host.shutDoors();
    }
  });
});
