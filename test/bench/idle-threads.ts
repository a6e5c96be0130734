import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Client } from '@temporalio/client';
import { stringify } from 'yaml';
import { sendMessage } from '../../cli/commands/ask';
import { workerCapacity } from '../../infra/worker';
import { projectRoot } from '../../infra/paths';
import { testTemporalAddress, uniqueTaskQueue } from '../helpers/temporal';
import { closedAt } from './closed-at';

/** What the idle-threads measurement found. */
export interface IdleThreads {
  /** The worker's RSS in MB when it was ready (empty) and with every thread idle in it. */
  rssEmptyMb: number;
  rssIdleMb: number;
  /** Follow-ups to random idle threads, request → run closed, in ms. */
  followUps: number[];
  cachedWorkflows: number;
  fillSeconds: number;
}

/**
 * Starts a worker process of ours (`dist/infra/worker-main.js`) given `memoryMb`, fills it with
 * `threads` idle threads (one answered run each, scripted model), reads its RSS, then sends
 * `followUps` follow-ups to random ones, one at a time. The worker runs alone in its process so
 * its RSS is its own; the client and the scripted model file live here.
 */
export async function measureIdleThreads(
  client: Client,
  dir: string,
  options: { threads: number; followUps: number; memoryMb: number; concurrency?: number },
): Promise<IdleThreads> {
  const taskQueue = uniqueTaskQueue('bench-idle');
  writeFileSync(join(dir, 'idle.yaml'), stringify({ turns: [{ text: 'Hello.' }] }));
  const config = join(dir, 'idle-config.yaml');
  writeFileSync(config, stringify({ models: { allowed: ['scripted:*'], scriptedDirs: { bench: dir } } }));
  const model = 'scripted:bench/idle.yaml';
  const worker = await startWorker({
    SWITCHBOARD_CONFIG: config,
    SWITCHBOARD_TASK_QUEUE: taskQueue,
    SWITCHBOARD_DATA_DIR: join(dir, 'idle-data'),
    SWITCHBOARD_WORKER_MEMORY_MB: String(options.memoryMb),
    LOG_LEVEL: 'warn',
  });
  try {
    const rssEmptyMb = rssMb(worker.pid!);
    const threads: string[] = [];
    const started = Date.now();
    const concurrency = options.concurrency ?? 20;
    while (threads.length < options.threads) {
      const batch = Math.min(concurrency, options.threads - threads.length);
      threads.push(
        ...(await Promise.all(Array.from({ length: batch }, () => ask(client, taskQueue, model).then((sent) => sent.threadId)))),
      );
    }
    const fillSeconds = (Date.now() - started) / 1000;
    const rssIdleMb = rssMb(worker.pid!);
    const followUps: number[] = [];
    for (let k = 0; k < options.followUps; k += 1) {
      const thread = threads[Math.floor(Math.random() * threads.length)];
      followUps.push((await ask(client, taskQueue, model, thread)).ms);
    }
    return { rssEmptyMb, rssIdleMb, followUps, cachedWorkflows: workerCapacity(options.memoryMb).maxCachedWorkflows, fillSeconds };
  } finally {
    await stop(worker);
  }
}

/** Sends one message and waits for its run to close; the time is request → the run's close (server clock). */
async function ask(client: Client, taskQueue: string, model: string, thread?: string): Promise<{ threadId: string; ms: number }> {
  const t0 = Date.now();
  const sent = await sendMessage(client, taskQueue, 'hello', {
    requester: 'bench',
    agent: 'general',
    model,
    ...(thread ? { thread } : {}),
  });
  if (sent.outcome.kind !== 'run' || !sent.outcome.runId) throw new Error(`no run started: ${JSON.stringify(sent.outcome)}`);
  return { threadId: sent.threadId, ms: (await closedAt(client, sent.outcome.runId)) - t0 };
}

function rssMb(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1] ?? NaN) / 1024;
}

async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(projectRoot(), 'dist', 'infra', 'worker-main.js')], {
    cwd: projectRoot(),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', TEMPORAL_ADDRESS: testTemporalAddress(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('SWITCHBOARD_WORKER_READY')) resolve();
    });
    child.once('exit', () => reject(new Error(`worker exited before ready:\n${text}`)));
  });
  child.removeAllListeners('exit');
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
