import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultUidRange, foreignProcesses, LEGACY_UID_RANGE, processesOf, SandboxUids, uidRangeFor } from './sandbox-uids';
import { waitUntil } from './test-support';

/**
 * One host, one owner per uid (issue 31): a workspace kills every process of its uid when its
 * sandbox starts and ends, so a uid with a live process of someone else's (another deployment's
 * sandbox, an account) must never be handed out, and each deployment gets a range of its own.
 */
describe('sandbox uids', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-uids-'));
  const started: ChildProcess[] = [];
  afterAll(() => {
    for (const child of started) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  /** A process of another deployment's sandbox: `sleep` as `uid`, until the test ends. */
  async function foreignProcess(uid: number): Promise<number> {
    const child = spawn('setpriv', ['--reuid', String(uid), '--regid', String(uid), '--clear-groups', '--', 'sleep', '600'], {
      stdio: 'ignore',
    });
    started.push(child);
    await waitUntil(() => processesOf(uid).length > 0);
    return child.pid!;
  }

  /** A range of the test's own, far above every deployment's default, so no other suite on the host uses it. */
  const privateRange = (count: number) => ({ first: 3_000_000_000 + randomInt(0, 1_000_000) * 16, count });

  test('a uid with a live process of someone else is never handed out', async () => {
    const range = privateRange(2);
    const foreignPid = await foreignProcess(range.first);
    const registry = join(dir, 'registry-a');
    const claimed: number[] = [];
    for (const name of ['one', 'two']) {
      const root = join(dir, `ws-${name}`);
      mkdirSync(join(root, 'state'), { recursive: true });
      claimed.push(await new SandboxUids(registry, range).claim(root, join(root, 'state')).catch(() => -1));
    }
    // The free uid went to the first workspace; the second found none (the other one is in use elsewhere).
    expect(claimed).toEqual([range.first + 1, -1]);
    // What the doctor names: a process in this deployment's range that its registry does not hold.
    expect(foreignProcesses(range, registry)).toEqual([{ pid: foreignPid, uid: range.first }]);
  });

  test('a uid an earlier claim left stale is taken back only while no process of it lives', async () => {
    const range = privateRange(1);
    const registry = join(dir, 'registry-b');
    mkdirSync(registry, { recursive: true });
    // Claimed for a workspace folder that is gone (a data dir deleted without releasing it).
    writeFileSync(join(registry, String(range.first)), join(dir, 'gone'));
    const root = join(dir, 'ws-three');
    mkdirSync(join(root, 'state'), { recursive: true });
    await foreignProcess(range.first);
    await expect(new SandboxUids(registry, range).claim(root, join(root, 'state'))).rejects.toThrow(/no free sandbox uid/);
  });

  test("each deployment's default range is its own, and workspaces of the legacy shared range keep their uid", async () => {
    const a = defaultUidRange('/srv/switchboard-a/.data');
    const b = defaultUidRange('/srv/switchboard-b/.data');
    expect(a).not.toEqual(b);
    for (const range of [a, b]) {
      expect(range.count).toBe(100_000);
      expect(range.first).toBeGreaterThanOrEqual(LEGACY_UID_RANGE.first);
      expect(range.first + range.count).toBeLessThan(2 ** 31);
    }
    expect(uidRangeFor('/srv/a', { first: 2_000_000_000, count: 10 })).toEqual({
      range: { first: 2_000_000_000, count: 10 },
      configured: true,
    });
    const root = join(dir, 'ws-legacy');
    const registry = join(dir, 'registry-c');
    mkdirSync(join(root, 'state'), { recursive: true });
    mkdirSync(registry, { recursive: true });
    const legacy = LEGACY_UID_RANGE.first + 42;
    writeFileSync(join(root, 'state', 'uid'), String(legacy));
    writeFileSync(join(registry, String(legacy)), root);
    expect(await new SandboxUids(registry, a, [LEGACY_UID_RANGE]).claim(root, join(root, 'state'))).toBe(legacy);
  });
});
