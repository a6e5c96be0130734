import { BASH_TIMEOUT_MAX_MS } from '../../tools/bash';
import { type SandboxLimits } from './limits';

/**
 * How to run a job longer than one call: detached into its own session so the call's
 * process-group reaping spares it, with the wrapper's own stdio closed so the call does
 * not wait on its output.
 */
export const DETACH_RECIPE =
  'setsid -f sh -c \'<command> > "$TMPDIR/job.log" 2>&1; echo $? > "$TMPDIR/job.exit"\' </dev/null >/dev/null 2>&1';

/** What the model reads after exit 124. */
export function timeoutHint(timeoutMs: number): string {
  return [
    `The command was stopped after ${Math.round(timeoutMs / 1000)} s (exit 124). Each call's process group is reaped when it`,
    'returns or times out, so a plain background job (cmd &) dies with the call. Run a longer job detached:',
    `  ${DETACH_RECIPE}`,
    'then wait for it with the wait_for_job tool (exitFile /tmp/job.exit, logFile /tmp/job.log), or tail /tmp/job.log',
    `on later calls. A single call may also ask for timeoutMs up to ${BASH_TIMEOUT_MAX_MS} (20 minutes).`,
  ].join('\n');
}

/** Said when the requested timeout was outside what a call may have. */
export function clampedTimeoutNote(requested: number, used: number): string {
  return `timeoutMs ${requested} is outside 1000..${BASH_TIMEOUT_MAX_MS}; the call ran with ${used}.`;
}

/** Said on results of unisolated commands, so nobody mistakes them for sandboxed ones. */
export function unisolatedNote(reason: string): string {
  return `This command ran without bubblewrap isolation (${reason}); /tmp is the machine's, so keep job files in $TMPDIR as the detach recipe does.`;
}

/**
 * What the kernel counted while a command ran: the workspace's cgroup counters (fork refusals
 * at pids.max, OOM kills), the signal that ended the call's own process (SIGXCPU and SIGXFSZ are
 * what RLIMIT_CPU and RLIMIT_FSIZE send), and which of its filesystems are full now (statvfs).
 * Never what the command printed or the exit status it chose: a command that prints "No space
 * left on device" or exits 152 gets no hint for it.
 */
export interface BoundsSeen {
  forkRefused: boolean;
  oomKilled: boolean;
  signal?: NodeJS.Signals;
  /** Filesystems of the workspace that are full after the command. */
  full?: ReadonlyArray<'disk' | 'tmp' | 'shm'>;
}

/** A filesystem with less free than this (1 MiB, or 1% of it) counts as full. */
export function isFull(space: { size: number; free: number }): boolean {
  return space.size > 0 && space.free <= Math.max(1024 * 1024, space.size / 100);
}

/**
 * Says which bound a failed command hit, so the model (and the person reading the card) learns
 * why, not just that it failed. The bounds themselves are enforced by the kernel; what is said
 * here is what the kernel counted (BoundsSeen), so it is never said of a bound nobody reached.
 */
export function boundsHint(seen: BoundsSeen, limits: SandboxLimits): string | undefined {
  const notes: string[] = [];
  if (seen.forkRefused)
    notes.push(`The workspace reached its bound of ${limits.processes} processes and threads: new ones were refused (fork failed).`);
  if (seen.oomKilled)
    notes.push(`A process was killed for memory: the workspace may use ${limits.memoryMiB} MiB, /tmp and /dev/shm included.`);
  if (seen.signal === 'SIGXCPU') notes.push(`The command used up its ${limits.cpuSeconds} s of CPU time and was stopped (SIGXCPU).`);
  if (seen.signal === 'SIGXFSZ') notes.push(`The command wrote a file past the ${limits.fileMiB} MiB a process may write (SIGXFSZ).`);
  const sizes = { disk: `${limits.diskMiB} MiB`, tmp: `${limits.tmpMiB} MiB`, shm: `${limits.shmMiB} MiB` };
  const names = { disk: "the workspace's disk (/workspace and $HOME)", tmp: '/tmp', shm: '/dev/shm' };
  for (const part of seen.full ?? [])
    notes.push(`${names[part][0].toUpperCase()}${names[part].slice(1)} is full: it holds ${sizes[part]}; delete what is not needed.`);
  return notes.length > 0 ? notes.join('\n') : undefined;
}
