import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** Switchboard as `npm start` runs it (`node dist/infra/main.js`), with the demo's config and secrets. */
export interface ProductProcess {
  pid: number;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<string>;
  /** The last lines of its log, for a failure message. */
  logTail(lines?: number): string;
  /** SIGTERM (its graceful shutdown: HTTP server, worker, connections), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Spawns the product with a minimal environment (PATH, HOME, LANG) plus `env`, so nothing of
 * the caller's shell (a TEMPORAL_ADDRESS, real tokens) leaks into the demo. Output goes to
 * `logFile`. The process gets its own process group: a Ctrl-C in the terminal reaches the
 * demo, which stops things in order.
 */
export function spawnProduct(options: { projectRoot: string; env: Record<string, string>; logFile: string }): ProductProcess {
  const log = openSync(options.logFile, 'a');
  const child = spawn(process.execPath, [join(options.projectRoot, 'dist', 'infra', 'main.js')], {
    cwd: options.projectRoot,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      ...(process.env.LANG ? { LANG: process.env.LANG } : {}),
      ...options.env,
    },
    stdio: ['ignore', log, log],
    detached: true,
  });
  closeSync(log);
  const exited = once(child, 'exit').then(([code, signal]) => (signal ? `signal ${String(signal)}` : `code ${String(code)}`));
  // If the demo itself dies without stopping, the product must not outlive it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  return {
    pid: child.pid!,
    exited,
    logTail: (lines = 20) => {
      try {
        return readFileSync(options.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '';
      }
    },
    async stop(graceMs = 20_000) {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const done = await Promise.race([exited.then(() => true), delay(graceMs, undefined, { ref: false }).then(() => false)]);
      if (!done) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/** Polls `/healthz` until it answers 200, failing early when the process exits. */
export async function waitHealthy(url: string, product: ProductProcess, timeoutMs = 60_000, signal?: AbortSignal): Promise<void> {
  let exited: string | undefined;
  void product.exited.then((how) => (exited = how));
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (exited) throw new Error(`Switchboard exited (${exited}) before it was healthy:\n${product.logTail()}`);
    if (signal?.aborted) throw new Error('interrupted while starting');
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
      last = `${response.status} ${await response.text()}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await delay(250);
  }
  throw new Error(`Switchboard was not healthy within ${timeoutMs / 1000} s (${last}):\n${product.logTail()}`);
}
