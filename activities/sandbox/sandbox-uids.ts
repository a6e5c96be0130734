import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Every workspace runs as a host uid of its own, from a range no account uses: nothing in a
 * sandbox is root on the host, two workspaces cannot signal or read each other's processes,
 * and RLIMIT_NPROC (counted per uid) bounds one workspace. A uid is claimed by creating
 * `<registry>/<uid>` exclusively (atomic across worker processes on the host), holding the
 * workspace folder that claimed it; the workspace keeps its uid in `state/uid`.
 */
export interface UidRange {
  first: number;
  count: number;
}

export const DEFAULT_UID_RANGE: UidRange = { first: 1_500_000_000, count: 100_000 };

/** Inside the sandbox every workspace's user is this uid and gid (mapped to the workspace's own host uid). */
export const SANDBOX_INSIDE_UID = 1000;

/**
 * bubblewrap's user namespace for a sandbox (the holder's and the start-time probe's alike): a new
 * one where the uid that started bwrap is SANDBOX_INSIDE_UID and nothing else is mapped, and no
 * process inside may create another.
 */
export const SANDBOX_USER_NAMESPACE_ARGS: readonly string[] = [
  '--unshare-user',
  '--disable-userns',
  '--uid',
  String(SANDBOX_INSIDE_UID),
  '--gid',
  String(SANDBOX_INSIDE_UID),
];

export class SandboxUids {
  constructor(
    private readonly registry: string,
    private readonly range: UidRange = DEFAULT_UID_RANGE,
  ) {}

  /** The workspace's uid: the one it already holds, else a free one claimed now. */
  async claim(workspaceRoot: string, stateDir: string): Promise<number> {
    const recorded = await this.recorded(stateDir);
    if (recorded !== undefined && (await this.owner(recorded)) === workspaceRoot) return recorded;
    await mkdir(this.registry, { recursive: true, mode: 0o700 });
    const start = Number.parseInt(createHash('sha256').update(workspaceRoot).digest('hex').slice(0, 8), 16) % this.range.count;
    for (let step = 0; step < this.range.count; step += 1) {
      const uid = this.range.first + ((start + step) % this.range.count);
      if (!(await this.take(uid, workspaceRoot))) continue;
      await writeFile(join(stateDir, 'uid'), String(uid), { mode: 0o600 });
      return uid;
    }
    throw new Error(`no free sandbox uid in ${this.range.first}…${this.range.first + this.range.count - 1}`);
  }

  /** Gives the workspace's uid back (its processes are gone and its files removed). */
  async release(workspaceRoot: string, stateDir: string): Promise<void> {
    const uid = await this.recorded(stateDir);
    if (uid !== undefined && (await this.owner(uid)) === workspaceRoot) await rm(join(this.registry, String(uid)), { force: true });
  }

  private async recorded(stateDir: string): Promise<number | undefined> {
    const text = await readFile(join(stateDir, 'uid'), 'utf8').catch(() => undefined);
    const uid = Number(text);
    return text !== undefined && Number.isInteger(uid) && uid >= this.range.first && uid < this.range.first + this.range.count
      ? uid
      : undefined;
  }

  private async owner(uid: number): Promise<string | undefined> {
    return readFile(join(this.registry, String(uid)), 'utf8').catch(() => undefined);
  }

  /**
   * Claims a uid: free, or held by a workspace folder that no longer exists and by no process
   * (a data dir deleted without releasing its workspaces).
   */
  private async take(uid: number, workspaceRoot: string): Promise<boolean> {
    const entry = join(this.registry, String(uid));
    try {
      await writeFile(entry, workspaceRoot, { flag: 'wx', mode: 0o600 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await this.owner(uid);
    // Ours already: an earlier claim was cut off before it noted the uid in the workspace.
    if (holder === workspaceRoot) return true;
    if (holder === undefined || existsSync(holder) || processesOf(uid).length > 0) return false;
    // Stale: replace it, then check that no other claimer replaced it at the same moment.
    await writeFile(entry, workspaceRoot, { mode: 0o600 });
    return (await this.owner(uid)) === workspaceRoot;
  }
}

/** Host pids whose real uid is `uid` (the processes of one workspace), from /proc. */
export function processesOf(uid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const real = /^Uid:\s+(\d+)/m.exec(status)?.[1];
      if (Number(real) === uid && !/^State:\s+Z/m.test(status)) pids.push(Number(entry));
    } catch {
      // Ended while we looked.
    }
  }
  return pids;
}
