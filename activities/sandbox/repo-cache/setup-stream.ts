import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { terminateGroup } from '../process-group';

export interface StreamedRun {
  code: number;
  stderr: string;
  /** The output passed `maxBytes`: the program was stopped and the file is partial. */
  tooLarge: boolean;
  timedOut: boolean;
  /** The worker's side of the copy failed (its file could not be read or written). */
  copyError?: string;
}

/**
 * Runs a program in the sandbox with its stdin from a file or its stdout to one (the worker's own
 * files, never the workspace's), bounded in time and size; the whole process group goes at the end
 * or when `signal` aborts. Both copies are pipelines: a slow disk slows the program down instead
 * of piling its output up in the worker's memory.
 */
export function streamed(
  argv: string[],
  env: Record<string, string>,
  options: { stdin?: string; stdout?: string; maxBytes?: number; timeoutMs: number; signal?: AbortSignal },
): Promise<StreamedRun> {
  const child = spawn(argv[0], argv.slice(1), { env, cwd: '/', detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  let tooLarge = false;
  let timedOut = false;
  let copyError: string | undefined;
  const stop = () => child.pid !== undefined && void terminateGroup(child.pid, 500);
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  options.signal?.addEventListener('abort', stop, { once: true });
  if (options.signal?.aborted) stop();
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 4_000) stderr += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number; error?: string }>((resolve) => {
    child.once('error', (error) => resolve({ code: 127, error: error.message }));
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1) }));
  });
  const input = options.stdin
    ? pipeline(createReadStream(options.stdin), child.stdin).catch((error: NodeJS.ErrnoException) => {
        // The program closing its stdin early is its own failure (its exit says it); a file we cannot read is ours.
        if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_PREMATURE_CLOSE') copyError ??= error.message;
        stop();
      })
    : Promise.resolve(child.stdin.end());
  let size = 0;
  const bounded = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (options.maxBytes === undefined || size <= options.maxBytes) return done(null, chunk);
      tooLarge = true;
      stop();
      done(new Error('the output is over its bound'));
    },
  });
  const output = options.stdout
    ? pipeline(child.stdout, bounded, createWriteStream(options.stdout, { mode: 0o600 })).catch((error: Error) => {
        if (!tooLarge) copyError ??= error.message;
        stop();
      })
    : Promise.resolve(child.stdout.resume());
  return Promise.all([exited, input, output]).then(([ended]) => {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
    return {
      code: ended.code,
      stderr: ended.error ? `${stderr}${ended.error}` : stderr,
      tooLarge,
      timedOut,
      ...(copyError ? { copyError } : {}),
    };
  });
}
