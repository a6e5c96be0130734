import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { holderArguments } from './isolation';
import { type WorkspaceLayout } from './workspace-layout';

/**
 * The holder is one long-lived bubblewrap sandbox per workspace whose init only waits.
 * Commands enter its namespaces with nsenter, so a `setsid -f` job is re-parented to the
 * holder's init and outlives the command that started it (a bwrap per command would take
 * its pid namespace, and every job in it, down when the command returned).
 */
export interface HolderRecord {
  /** Host pid of the sandbox's pid 1, the process nsenter targets. */
  pid: number;
  /** Its start time in clock ticks, so a recycled pid is never mistaken for the holder. */
  startTime: string;
}

/**
 * The holder's only program: wait while the workspace exists. A folder removed without
 * releaseWorkspace (a test's temp dir, an operator's rm -rf) has link count 0, and the
 * holder then ends by itself instead of idling forever. bubblewrap's init stays while any
 * process of the namespace lives, so the waiter first kills them all (`kill -1` in a pid
 * namespace reaches every process in it but init and the caller; same uid, no capability needed).
 */
const WAITER = 'while [ "$(stat -c %h /workspace 2>/dev/null || echo 0)" != 0 ]; do sleep 5; done; kill -KILL -1 2>/dev/null; exit 0';

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

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The holder recorded for this workspace, when it is still the same live process. */
export async function liveHolder(layout: WorkspaceLayout): Promise<HolderRecord | undefined> {
  let record: HolderRecord;
  try {
    record = JSON.parse(await readFile(recordPath(layout), 'utf8')) as HolderRecord;
  } catch {
    return undefined;
  }
  return processStartTime(record.pid) === record.startTime ? record : undefined;
}

/** Starts the workspace's holder and records it; the caller serialises calls per workspace. */
export async function startHolder(layout: WorkspaceLayout, dataDir: string, hiddenPaths: readonly string[] = []): Promise<HolderRecord> {
  const log = openSync(join(layout.state, 'holder.log'), 'a');
  // Detached and without --die-with-parent: the holder (and the jobs in it) outlive a worker
  // restart; the next worker finds it through holder.json.
  const child = spawn('bwrap', [...holderArguments(layout, dataDir, hiddenPaths), '--info-fd', '3', '--', '/bin/sh', '-c', WAITER], {
    detached: true,
    stdio: ['ignore', log, log, 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
  });
  closeSync(log);
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
      reject(new Error(`the sandbox holder exited at start (code ${code}); see ${join(layout.state, 'holder.log')}`));
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  child.unref();
  (child.stdio[3] as NodeJS.ReadableStream & { destroy(): void }).destroy();
  const pid = (JSON.parse(info) as { 'child-pid'?: number })['child-pid'];
  const startTime = pid === undefined ? undefined : processStartTime(pid);
  if (pid === undefined || startTime === undefined) throw new Error(`the sandbox holder did not stay up (info: ${info.trim()})`);
  await waitUntilReady(pid);
  const record = { pid, startTime };
  await writeFile(recordPath(layout), JSON.stringify(record));
  return record;
}

/**
 * bwrap reports the child pid before that child has built the sandbox's mounts; entering
 * then would see a half-made root. The sandbox is ready once its init's child runs the waiter.
 */
async function waitUntilReady(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
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
