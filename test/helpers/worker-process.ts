import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { projectRoot } from '../../infra/paths';
import { testTemporalAddress } from './temporal';

/** A worker-only process (`node dist/infra/worker-main.js`) that a test can SIGKILL. */
export interface WorkerProcess {
  pid: number;
  /** Everything the process wrote, for failure messages. */
  output(): string;
  /** SIGKILL: no shutdown, no cleanup, in-flight activities are simply lost. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts a worker process on the shared test server and resolves once it polls
 * (`SWITCHBOARD_WORKER_READY`). `env` adds to a minimal environment (no secrets of ours).
 */
export async function startWorkerProcess(options: {
  taskQueue: string;
  dataDir: string;
  cwd: string;
  env?: Record<string, string>;
  /** Its own process group, and `kill()` SIGKILLs the whole group (its git, sandbox holders and commands too). */
  group?: boolean;
}): Promise<WorkerProcess> {
  const child: ChildProcess = spawn(process.execPath, [join(projectRoot(), 'dist', 'infra', 'worker-main.js')], {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      LOG_LEVEL: 'warn',
      SWITCHBOARD_LOG_FORMAT: 'json',
      TEMPORAL_ADDRESS: testTemporalAddress(),
      SWITCHBOARD_TASK_QUEUE: options.taskQueue,
      SWITCHBOARD_DATA_DIR: options.dataDir,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.group ?? false,
  });
  let text = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const exited = once(child, 'exit');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker not ready in 30 s:\n${text}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('SWITCHBOARD_WORKER_READY')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`worker exited before it was ready:\n${text}`));
    });
  });
  return {
    pid: child.pid!,
    output: () => text,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (options.group) process.kill(-child.pid!, 'SIGKILL');
      else child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
