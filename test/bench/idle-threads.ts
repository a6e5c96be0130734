import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Client } from '@temporalio/client';
import { stringify } from 'yaml';
import { sendMessage } from '../../cli/commands/ask';
import { composeMessage, deliverToThread } from '../../infra/thread-client';
import { type MemoryReport } from '../../infra/memory-report';
import { workerCapacity } from '../../infra/worker';
import { projectRoot } from '../../infra/paths';
import { testTemporalAddress, uniqueTaskQueue } from '../helpers/temporal';
import { closedAt } from './closed-at';

/** The worker's memory with `threads` idle threads filled (a full GC first when `--expose-gc`). */
export interface MemoryPoint extends MemoryReport {
  threads: number;
}

/** What the idle-threads measurement found; partial (`complete: false`) when its deadline cut it. */
export interface IdleThreads {
  complete: boolean;
  /** Threads filled (each with one answered run) before the deadline. */
  threads: number;
  /** The worker's memory when ready (0 threads), every `reportEvery` threads, and at the end of the fill. */
  points: MemoryPoint[];
  /** Follow-ups to random idle threads, request → run closed, in ms. */
  followUps: number[];
  cachedWorkflows: number;
  fillSeconds: number;
}

export interface IdleThreadsOptions {
  threads: number;
  followUps: number;
  /** SWITCHBOARD_WORKER_MEMORY_MB of the worker. */
  memoryMb: number;
  /** Threads being filled at once (a pool: a new one starts as soon as one finishes). */
  concurrency?: number;
  /** Stop filling (and skip what is left) at this time (ms since the epoch); the result says it was cut. */
  deadline?: number;
  /** NODE_OPTIONS of the worker (e.g. `--max-old-space-size=400`). */
  nodeOptions?: string;
  reportEvery?: number;
  progress?: (line: string) => void;
}

/**
 * Starts a worker process of ours (`dist/infra/worker-main.js`) given `memoryMb`, fills it with
 * `threads` idle threads (one answered run each, scripted model), reads its memory as it goes,
 * then sends `followUps` follow-ups to random ones, one at a time. The worker runs alone in its
 * process so its RSS is its own (`--expose-gc` and SWITCHBOARD_MEMORY_REPORT, so each reading is
 * after a full GC: live memory, not garbage); the client and the scripted model file live here.
 *
 * The fill signals each new thread and waits for its run (`run:<thread>:1`) to close on the
 * server; it does not poll the thread with queries as `sendMessage` does (at 20 in flight that
 * was ~100 queries a second on the worker under measurement). Follow-ups go through
 * `sendMessage`, the CLI's own path.
 */
export async function measureIdleThreads(client: Client, dir: string, options: IdleThreadsOptions): Promise<IdleThreads> {
  const taskQueue = uniqueTaskQueue('bench-idle');
  writeFileSync(join(dir, 'idle.yaml'), stringify({ turns: [{ text: 'Hello.' }] }));
  const config = join(dir, 'idle-config.yaml');
  writeFileSync(config, stringify({ models: { allowed: ['scripted:*'], scriptedDirs: { bench: dir } } }));
  const model = 'scripted:bench/idle.yaml';
  const deadline = options.deadline ?? Infinity;
  const reportEvery = options.reportEvery ?? 100;
  const progress = options.progress ?? (() => undefined);
  const worker = await startWorker({
    SWITCHBOARD_CONFIG: config,
    SWITCHBOARD_TASK_QUEUE: taskQueue,
    SWITCHBOARD_DATA_DIR: join(dir, `idle-data-${randomUUID().slice(0, 8)}`),
    SWITCHBOARD_WORKER_MEMORY_MB: String(options.memoryMb),
    SWITCHBOARD_MEMORY_REPORT: process.env.BENCH_IDLE_MEMORY_REPORT ?? '1',
    NODE_OPTIONS: `--expose-gc ${options.nodeOptions ?? ''}`.trim(),
    LOG_LEVEL: 'warn',
    // glibc's malloc arenas, when the run sets them (docs/performance.md: what the native side holds).
    ...(process.env.MALLOC_ARENA_MAX ? { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX } : {}),
  });
  const result: IdleThreads = {
    complete: false,
    threads: 0,
    points: [],
    followUps: [],
    cachedWorkflows: workerCapacity(options.memoryMb).maxCachedWorkflows,
    fillSeconds: 0,
  };
  try {
    result.points.push({ threads: 0, ...(await worker.report()) });
    const threads: string[] = [];
    const started = Date.now();
    let next = 0;
    let lastReport = 0;
    const fillOne = async (): Promise<void> => {
      while (next < options.threads && Date.now() < deadline) {
        next += 1;
        const threadId = `thread:bench:${randomUUID()}`;
        await deliverToThread(client, taskQueue, {
          threadId,
          input: { threadId, replyTarget: { kind: 'cli' } },
          message: {
            messageId: `bench:${randomUUID()}`,
            text: composeMessage('hello', { agent: 'general', model }),
            requester: { id: 'bench', surface: 'cli' },
          },
          summary: 'bench idle thread',
        });
        await Promise.race([closedAt(client, `run:${threadId}:1`), worker.exited]);
        threads.push(threadId);
        if (threads.length - lastReport >= reportEvery) {
          lastReport = threads.length;
          const point = { threads: threads.length, ...(await worker.report()) };
          result.points.push(point);
          progress(
            `${point.threads} threads in ${Math.round((Date.now() - started) / 1000)} s: RSS ${point.rss} MiB, heap ${point.heapUsed} MiB`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: options.concurrency ?? 20 }, fillOne));
    result.fillSeconds = (Date.now() - started) / 1000;
    result.threads = threads.length;
    if (lastReport !== threads.length) result.points.push({ threads: threads.length, ...(await worker.report()) });
    for (let k = 0; k < options.followUps && Date.now() < deadline && threads.length > 0; k += 1) {
      const thread = threads[Math.floor(Math.random() * threads.length)];
      result.followUps.push(await followUp(client, taskQueue, model, thread));
    }
    result.complete = threads.length === options.threads && result.followUps.length === options.followUps;
    return result;
  } finally {
    await worker.stop();
  }
}

/** One follow-up through the CLI's path; the time is request → the run's close (server clock). */
async function followUp(client: Client, taskQueue: string, model: string, thread: string): Promise<number> {
  const t0 = Date.now();
  const sent = await sendMessage(client, taskQueue, 'hello', { requester: 'bench', agent: 'general', model, thread });
  if (sent.outcome.kind !== 'run' || !sent.outcome.runId) throw new Error(`no run started: ${JSON.stringify(sent.outcome)}`);
  return (await closedAt(client, sent.outcome.runId)) - t0;
}

interface WorkerProcess {
  report(): Promise<MemoryReport>;
  /** Rejects with the worker's last output if it exits before `stop()`. */
  exited: Promise<never>;
  stop(): Promise<void>;
}

async function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [join(projectRoot(), 'dist', 'infra', 'worker-main.js')], {
    cwd: projectRoot(),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', TEMPORAL_ADDRESS: testTemporalAddress(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  let waiting: ((report: MemoryReport) => void) | undefined;
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      for (;;) {
        const match = /SWITCHBOARD_MEMORY (\{.*\})\n/.exec(text);
        if (!match) break;
        text = text.slice(match.index + match[0].length);
        waiting?.(JSON.parse(match[1]) as MemoryReport);
        waiting = undefined;
      }
      if (text.includes('SWITCHBOARD_WORKER_READY')) {
        text = text.replace('SWITCHBOARD_WORKER_READY\n', '');
        resolve();
      }
    });
    child.once('exit', () => reject(new Error(`worker exited before ready:\n${text}`)));
  });
  child.removeAllListeners('exit');
  let stopping = false;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => {
      if (!stopping) reject(new Error(`worker exited (${code ?? signal}) during the measurement:\n${text.slice(-4000)}`));
    }),
  );
  exited.catch(() => undefined);
  return {
    exited,
    report: () =>
      Promise.race([
        new Promise<MemoryReport>((resolve) => {
          waiting = resolve;
          child.kill('SIGUSR2');
        }),
        exited,
      ]),
    stop: () => {
      stopping = true;
      return stop(child);
    },
  };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
