import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { HOST_ENV } from './host-exec';
import { type WorkspaceLayout } from './workspace-layout';

/**
 * The holder is one long-lived bubblewrap sandbox per workspace whose init only waits.
 * Commands enter its namespaces with nsenter, so a `setsid -f` job is re-parented to the
 * holder's init and outlives the command that started it (a bwrap per command would take
 * its pid namespace, and every job in it, down when the command returned).
 *
 * It runs as the workspace's own unprivileged host uid, in a user namespace of its own where
 * that uid is the sandbox user: nothing in it is root on the host.
 */
export interface HolderRecord {
  /** Host pid of the sandbox's pid 1, the process nsenter targets. */
  pid: number;
  /** Its start time in clock ticks, so a recycled pid is never mistaken for the holder. */
  startTime: string;
  /** The workspace's host uid the holder runs as (absent in records of the earlier root holder). */
  uid?: number;
  /** Workflows that used this sandbox since it started: the janitor ends it once all of them are closed. */
  owners?: string[];
  /** The read-only folders it was started with besides its disk (holder-binds.ts labels). */
  binds?: string[];
}

/** The file descriptor the holder's waiter watches: the workspace's lease file, open in the worker's folder. */
const LEASE_FD = 5;

/**
 * The holder's only program: wait while the workspace exists. Its lease file is held open by
 * the waiter; a workspace folder removed without releaseWorkspace (a test's temp dir, an
 * operator's rm -rf) leaves that file with no links, and the holder then ends by itself
 * instead of idling forever. bubblewrap's init stays while any process of the namespace lives,
 * so the waiter first kills them all (`kill -1` in a pid namespace reaches every process in it
 * but init and the caller).
 */
const WAITER = `while [ "$(stat -L -c %h /proc/self/fd/${LEASE_FD} 2>/dev/null || echo 0)" != 0 ]; do sleep 5; done; kill -KILL -1 2>/dev/null; exit 0`;

const recordPath = (layout: WorkspaceLayout) => join(layout.state, 'holder.json');

/** The start time field of /proc/<pid>/stat, or undefined when no such process runs. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3; start time is field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Waits (up to a second) until the holder's process has ended (gone, or a zombie waiting for its parent). */
export async function untilEnded(holder: HolderRecord, timeoutMs = 1_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && processRunning(holder.pid, holder.startTime)) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Whether the process with this pid and start time still runs (a zombie does not). */
function processRunning(pid: number, startTime: string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] === startTime && fields[0] !== 'Z';
  } catch {
    return false;
  }
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The holder recorded for this workspace, when it is still the same live process (and ran as `uid`, when given). */
export async function liveHolder(layout: WorkspaceLayout, uid?: number): Promise<HolderRecord | undefined> {
  let record: HolderRecord;
  try {
    record = JSON.parse(await readFile(recordPath(layout), 'utf8')) as HolderRecord;
  } catch {
    return undefined;
  }
  if (processStartTime(record.pid) !== record.startTime) return undefined;
  // A holder of the earlier design ran as root: never enter it.
  if (uid !== undefined && record.uid !== uid) return undefined;
  return record;
}

/** Notes that a workflow uses the holder (the janitor's evidence of who still needs it). */
export async function addOwner(layout: WorkspaceLayout, record: HolderRecord, owner: string | undefined): Promise<HolderRecord> {
  if (!owner || record.owners?.includes(owner)) return record;
  const updated = { ...record, owners: [...(record.owners ?? []).slice(-15), owner] };
  await writeFile(recordPath(layout), JSON.stringify(updated), { mode: 0o600 });
  return updated;
}

export interface HolderStart {
  /** The argv prefix that puts the holder in the workspace's cgroups (empty without cgroups). */
  cgroupPrefix: string[];
  uid: number;
  /** bubblewrap's arguments before `--` (isolation.ts holderArguments). */
  args: string[];
  /** Files the worker opens and hands over by descriptor: the seccomp program, /etc/passwd and /etc/group. */
  seccomp: string;
  passwd: string;
  group: string;
  owner?: string;
  binds?: string[];
}

/** The descriptors bubblewrap reads its inputs from (see HolderStart). */
export const HOLDER_FDS = { info: 3, seccomp: 4, lease: LEASE_FD, passwd: 6, group: 7 } as const;

/** Starts the workspace's holder and records it; the caller serialises calls per workspace. */
export async function startHolder(layout: WorkspaceLayout, start: HolderStart): Promise<HolderRecord> {
  const log = openSync(join(layout.state, 'holder.log'), 'a', 0o600);
  const lease = join(layout.state, 'lease');
  await writeFile(lease, '', { mode: 0o600 });
  const inputs = [start.seccomp, lease, start.passwd, start.group].map((path) => openSync(path, 'r'));
  const argv = [
    ...start.cgroupPrefix,
    'setpriv',
    '--reuid',
    String(start.uid),
    '--regid',
    String(start.uid),
    '--clear-groups',
    '--no-new-privs',
    '--',
    'bwrap',
    ...start.args,
    '--',
    '/bin/sh',
    '-c',
    WAITER,
  ];
  // Detached and without --die-with-parent: the holder (and the jobs in it) outlive a worker
  // restart; the next worker finds it through holder.json.
  const child = spawn(argv[0], argv.slice(1), {
    detached: true,
    cwd: '/',
    stdio: ['ignore', log, log, 'pipe', inputs[0], inputs[1], inputs[2], inputs[3]],
    env: HOST_ENV,
  });
  closeSync(log);
  for (const fd of inputs) closeSync(fd);
  const info = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error('the sandbox holder did not report within 10 s')), 10_000);
    const pipe = child.stdio[3] as NodeJS.ReadableStream;
    pipe.setEncoding('utf8');
    // bwrap writes one JSON object; take it as soon as it parses rather than wait for EOF.
    pipe.on('data', (chunk: string) => {
      text += chunk;
      if (parsesAsJson(text)) {
        clearTimeout(timer);
        resolve(text);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the sandbox holder exited at start (code ${code}): ${logTail(layout)}`));
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  // From here on the holder lives on its own: its end is not an error of this start.
  child.removeAllListeners('exit');
  child.removeAllListeners('error');
  child.unref();
  (child.stdio[3] as NodeJS.ReadableStream & { destroy(): void }).destroy();
  const pid = (JSON.parse(info) as { 'child-pid'?: number })['child-pid'];
  const startTime = pid === undefined ? undefined : processStartTime(pid);
  if (pid === undefined || startTime === undefined) throw new Error(`the sandbox holder did not stay up (info: ${info.trim()})`);
  await waitUntilReady(pid, layout);
  const record: HolderRecord = {
    pid,
    startTime,
    uid: start.uid,
    owners: start.owner ? [start.owner] : [],
    ...(start.binds?.length ? { binds: start.binds } : {}),
  };
  await writeFile(recordPath(layout), JSON.stringify(record), { mode: 0o600 });
  return record;
}

/**
 * bwrap reports the child pid before that child has built the sandbox's mounts; entering
 * then would see a half-made root. The sandbox is ready once its init's child runs the waiter.
 */
async function waitUntilReady(pid: number, layout: WorkspaceLayout): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (processStartTime(pid) === undefined) throw new Error(`the sandbox holder ended while it was set up: ${logTail(layout)}`);
    try {
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean);
      // The child is still a bwrap until the mounts are done and it executes the waiter.
      if (children.some((child) => readFileSync(`/proc/${child}/comm`, 'utf8').trim() !== 'bwrap')) return;
    } catch {
      // Not there yet, or gone (the liveness check after this says which).
    }
    await delay(10);
  }
  throw new Error('the sandbox holder did not become ready within 10 s');
}

/**
 * Stops the holder: killing the sandbox's pid 1 makes the kernel kill every process in its
 * pid namespace, detached jobs included.
 */
export async function stopHolder(layout: WorkspaceLayout): Promise<boolean> {
  const holder = await liveHolder(layout);
  if (holder) {
    try {
      process.kill(holder.pid, 'SIGKILL');
    } catch {
      // Already gone between the check and the kill.
    }
  }
  await rm(recordPath(layout), { force: true });
  return holder !== undefined;
}

/** The last line bubblewrap wrote to the holder's log: why a start failed. */
function logTail(layout: WorkspaceLayout): string {
  try {
    return readFileSync(join(layout.state, 'holder.log'), 'utf8').trim().split('\n').pop() ?? '';
  } catch {
    return 'no log';
  }
}
