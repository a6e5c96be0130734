import { spawn } from 'node:child_process';
import { terminateGroup } from '../process-group';

/** What one file operation of the helper answered: its JSON header and the bytes after it. */
export type HelperAnswer<T> = { ok: true; header: T; data: Buffer } | { ok: false; code: string; error: string };

export interface HelperCall {
  argv: string[];
  env: Record<string, string>;
  /** Bytes for the helper's stdin (a write's content). */
  input?: Buffer;
  /** The operation is killed after this long: a FIFO or a slow disk stalls only the helper. */
  timeoutMs: number;
  /** More output than this is not read (the helper is killed): a file tool never buffers without bound. */
  maxOutputBytes: number;
}

/**
 * Runs one helper operation (a file read, write or listing inside the sandbox) as its own
 * process group and reads its answer. Everything it prints is hostile data: the header must be
 * JSON of the expected shape, and the answer is bounded in time and size.
 */
export function runHelper<T extends object>(call: HelperCall): Promise<HelperAnswer<T>> {
  return new Promise((resolve) => {
    const [file, ...args] = call.argv;
    const child = spawn(file, args, { env: call.env, cwd: '/', detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let settled = false;
    let exited = false;
    const finish = (answer: HelperAnswer<T>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Stopped early (timeout, too much output): the helper and anything it started go.
      if (!exited && child.pid !== undefined) void terminateGroup(child.pid, 200);
      resolve(answer);
    };
    const timer = setTimeout(
      () =>
        finish({ ok: false, code: 'io_error', error: `the file operation did not finish within ${Math.round(call.timeoutMs / 1000)} s` }),
      call.timeoutMs,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > call.maxOutputBytes) finish({ ok: false, code: 'too_large', error: `the answer was over ${call.maxOutputBytes} bytes` });
      else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4_000) stderr += chunk.toString('utf8');
    });
    child.once('error', (error) => finish({ ok: false, code: 'io_error', error: `the file operation could not start: ${error.message}` }));
    child.once('close', (code) => {
      exited = true;
      const output = Buffer.concat(chunks);
      const newline = output.indexOf(0x0a);
      let header: unknown;
      try {
        header = newline >= 0 ? JSON.parse(output.subarray(0, newline).toString('utf8')) : undefined;
      } catch {
        header = undefined;
      }
      if (!header || typeof header !== 'object' || typeof (header as { ok?: unknown }).ok !== 'boolean') {
        const why = stderr.trim().split('\n').pop() || `exit ${code}`;
        finish({ ok: false, code: 'io_error', error: `the file operation failed: ${why}` });
        return;
      }
      const answer = header as { ok: boolean; code?: unknown; error?: unknown };
      if (!answer.ok) {
        finish({
          ok: false,
          code: typeof answer.code === 'string' ? answer.code : 'io_error',
          error: typeof answer.error === 'string' ? answer.error : 'failed',
        });
        return;
      }
      finish({ ok: true, header: header as T, data: output.subarray(newline + 1) });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(call.input ?? Buffer.alloc(0));
  });
}

export interface CapturedRun {
  code: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/**
 * Runs a program inside the sandbox (the worker's own scripted steps, such as git for a ship
 * unit) with stdout and stderr apart, bounded in time and size; the whole process group goes
 * at the deadline or when the activity is cancelled.
 */
export function runCaptured(call: {
  argv: string[];
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
}): Promise<CapturedRun> {
  return new Promise((resolve) => {
    const [file, ...args] = call.argv;
    const child = spawn(file, args, { env: call.env, cwd: '/', detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const limit = 1024 * 1024;
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const stop = () => child.pid !== undefined && void terminateGroup(child.pid, 500);
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, call.timeoutMs);
    call.signal?.addEventListener('abort', stop, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdout.length < limit) stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < limit) stderr += chunk.toString('utf8');
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: 127, stdout, stderr: `${stderr}${error.message}`, timedOut });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', stop);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr, timedOut });
    });
  });
}
