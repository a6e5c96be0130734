import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * Every workspace runs as a host uid of its own, from a range no account uses: nothing in a
 * sandbox is root on the host, two workspaces cannot signal or read each other's processes,
 * and RLIMIT_NPROC (counted per uid) bounds one workspace. A uid is claimed by creating
 * `<registry>/<uid>` exclusively (atomic across worker processes of one data dir), holding the
 * workspace folder that claimed it, and only while no process of that uid lives on the host
 * (another deployment's sandbox, an account): a workspace later kills every process of its uid,
 * so a uid in use elsewhere is never handed out. The workspace keeps its uid in `state/uid`.
 */
export interface UidRange {
  first: number;
  count: number;
}

/** The one range every deployment used before ranges were per deployment: its workspaces keep their uids. */
export const LEGACY_UID_RANGE: UidRange = { first: 1_500_000_000, count: 100_000 };

/** How many uids a deployment's own default range holds. */
const DEFAULT_COUNT = 100_000;

/**
 * A deployment's own default range (`sandbox.uids` unset): 100 000 uids at one of 4 096 slots
 * from 1 500 000 000 on, chosen by its data dir, so two deployments on one host with default
 * settings do not share uids (and every uid stays below 2^31).
 */
export function defaultUidRange(dataDir: string): UidRange {
  const slot = Number.parseInt(createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 8), 16) % 4_096;
  return { first: LEGACY_UID_RANGE.first + slot * DEFAULT_COUNT, count: DEFAULT_COUNT };
}

/** The range a deployment's workspaces run in: the configured one, else its own default (and then the legacy range's recorded uids are kept). */
export function uidRangeFor(dataDir: string, configured?: UidRange): { range: UidRange; configured: boolean } {
  return configured ? { range: configured, configured: true } : { range: defaultUidRange(dataDir), configured: false };
}

const within = (uid: number, range: UidRange) => uid >= range.first && uid < range.first + range.count;

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
    private readonly range: UidRange,
    /** Ranges whose recorded uids a workspace keeps (the legacy range, for workspaces made before ranges were per deployment). */
    private readonly kept: readonly UidRange[] = [],
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
    return text !== undefined && Number.isInteger(uid) && [this.range, ...this.kept].some((range) => within(uid, range)) ? uid : undefined;
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
    // A uid with a live process is someone else's (another deployment's sandbox, an account): never ours to take.
    if (processesOf(uid).length > 0) return false;
    try {
      await writeFile(entry, workspaceRoot, { flag: 'wx', mode: 0o600 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await this.owner(uid);
    // Ours already: an earlier claim was cut off before it noted the uid in the workspace.
    if (holder === workspaceRoot) return true;
    if (holder === undefined || existsSync(holder)) return false;
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

/**
 * Live processes on this host whose uid is in `range` but not one `registry` (a data dir's
 * `sandbox-uids/`) holds: another deployment's sandboxes sharing the range, or an account's.
 * `switchboard doctor` names them; claims skip their uids.
 */
export function foreignProcesses(range: UidRange, registry: string): Array<{ pid: number; uid: number }> {
  let ours: Set<number>;
  try {
    ours = new Set(readdirSync(registry).map(Number));
  } catch {
    ours = new Set();
  }
  const found: Array<{ pid: number; uid: number }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]);
      if (within(uid, range) && !ours.has(uid)) found.push({ pid: Number(entry), uid });
    } catch {
      // Ended while we looked.
    }
  }
  return found;
}
