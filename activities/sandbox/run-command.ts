import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { once } from 'node:events';
import { type Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { CancelledFailure } from '@temporalio/common';
import { currentActivityContext } from './activity-context';
import { OutputBuffer } from './output-buffer';
import { letDetachersLeave, terminateGroup } from './process-group';

export interface CommandSpec {
  argv: string[];
  env: Record<string, string>;
  cwd?: string;
  timeoutMs: number;
  outputLimit: number;
  heartbeatMs?: number;
}

export interface CommandOutcome {
  exitCode: number;
  output: string;
  truncated: boolean;
  timedOut: boolean;
  durationMs: number;
  /** The signal that ended the call's own process, as the kernel reported it (never an exit status a command chose). */
  signal?: NodeJS.Signals;
}

/**
 * Runs one command as the leader of its own process group and reaps the whole group when
 * the command returns, times out or is cancelled. A `cmd &` job is in the group and dies
 * with it; a `setsid -f` job has left the group and lives on. Heartbeats while running,
 * and on activity cancellation kills the group and rethrows the cancellation.
 */
export async function runCommand(spec: CommandSpec): Promise<CommandOutcome> {
  const started = Date.now();
  const [file, ...args] = spec.argv;
  const child = spawn(file, args, { cwd: spec.cwd, env: spec.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const buffer = new OutputBuffer(spec.outputLimit);
  child.stdout.on('data', (chunk: Buffer) => buffer.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => buffer.push(chunk));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  // A spawn failure rejects both waits; the race below reports it, this keeps the other quiet.
  exited.catch(() => undefined);
  await Promise.race([once(child, 'spawn'), exited]);
  const pgid = child.pid!;

  let timedOut = false;
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= terminateGroup(pgid));
  const timer = setTimeout(() => {
    timedOut = true;
    void stop();
  }, spec.timeoutMs);
  const context = currentActivityContext();
  const beat = () => context?.heartbeat({ elapsedMs: Date.now() - started });
  beat();
  const heartbeat = context ? setInterval(beat, spec.heartbeatMs ?? 5_000) : undefined;
  const signal = context?.cancellationSignal;
  const onAbort = () => void stop();
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();

  try {
    const [code, killedBy] = await exited;
    // The deadline is for the command itself, not for the cleanup after it.
    clearTimeout(timer);
    // The command returned: whatever it left running in its group goes with it.
    if (!stopping) await letDetachersLeave(pgid);
    await (stopping ?? stop());
    await drain(child.stdout, child.stderr);
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new CancelledFailure('the command was cancelled');
    const exitCode = timedOut ? 124 : (code ?? 128 + (killedBy ? constants.signals[killedBy] : 0));
    return {
      exitCode,
      output: buffer.text(),
      truncated: buffer.truncated,
      timedOut,
      durationMs: Date.now() - started,
      ...(killedBy && !timedOut ? { signal: killedBy } : {}),
    };
  } finally {
    clearTimeout(timer);
    if (heartbeat) clearInterval(heartbeat);
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Waits briefly for the output pipes to close. A process that escaped the group but kept
 * the pipe open (a `setsid -f` without its stdio redirected) must not hold the call.
 */
async function drain(...streams: Readable[]): Promise<void> {
  const closed = Promise.all(streams.map((stream) => (stream.closed ? Promise.resolve() : once(stream, 'close'))));
  await Promise.race([closed, delay(1_000, undefined, { ref: false })]);
  for (const stream of streams) stream.destroy();
}
