import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { projectRoot } from '../../infra/paths';

/** The whole product as `npm start` runs it: embedded Temporal (with its Web UI), the worker and the HTTP server. */
export interface ProductProcess {
  pid: number;
  /** Everything the process wrote, for failure messages. */
  output(): string;
  /** SIGTERM, then SIGKILL if it has not gone after 30 s. */
  stop(): Promise<void>;
}

/**
 * Starts `node dist/infra/main.js` in `cwd` with exactly `env` (plus PATH) and resolves once
 * `/healthz` on `healthUrl` answers 200. The caller picks every port (freePort) and the data dir.
 */
export async function startProductProcess(options: {
  cwd: string;
  env: Record<string, string>;
  healthUrl: string;
}): Promise<ProductProcess> {
  const child: ChildProcess = spawn(process.execPath, [join(projectRoot(), 'dist', 'infra', 'main.js')], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = once(child, 'exit');
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the product exited before it was healthy:\n${text}`);
    const status = await fetch(options.healthUrl, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the product was not healthy within 120 s (last status ${status}):\n${text}`);
    }
    await delay(250);
  }
  return {
    pid: child.pid!,
    output: () => text,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
