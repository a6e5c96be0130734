import { existsSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { type DataConverter, type Duration } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { type RunStartDeps } from '../activities/runs/run-start';
import { SwitchboardError, TemporalUnreachableError } from './errors';
import { type Logger } from './logger';
import { createTemporalClient, type TemporalTarget } from './temporal-connection';
import { workflowBundlePath } from './paths';
import { processTracing } from './tracing';

export interface SwitchboardWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** The activity implementations, from `createActivities(deps)`. */
  activities: object;
  /** Prebuilt bundle; defaults to dist/workflow-bundle.js. */
  bundlePath?: string;
  logger?: Logger;
  /** Bounds how long a graceful shutdown waits for in-flight activities. */
  shutdownGraceTime?: Duration;
  /** Poll for activities only (a host's own queue): no workflow bundle. */
  activitiesOnly?: boolean;
  /** The deployment's payload codec (claim check); every client of the deployment must use the same. */
  dataConverter?: DataConverter;
  /** The memory this worker may use, in MiB (default: the V8 heap limit); sizes its workflow cache. */
  memoryMiB?: number;
  /** Run workflows in this thread (the SDK's debug mode): only for the memory report (memory-report.ts). */
  inlineWorkflows?: boolean;
  /** Activity pollers (the SDK's default unless set): a queue that only prefers a host needs one. */
  activityPollers?: number;
}

/** Creates a worker that loads the prebuilt workflow bundle (never bundles at start). */
export async function createSwitchboardWorker(options: SwitchboardWorkerOptions): Promise<Worker> {
  const codePath = options.bundlePath ?? workflowBundlePath();
  if (!options.activitiesOnly && !existsSync(codePath)) {
    throw new SwitchboardError('bundle_missing', `workflow bundle ${codePath} is missing: run \`npm run build\` first`);
  }
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(options.activitiesOnly ? {} : { workflowBundle: { codePath } }),
    activities: options.activities,
    // Traces (infra/tracing.ts): each activity's span, and the sink the workflows' spans leave by.
    interceptors: processTracing().workerInterceptors(),
    sinks: processTracing().workerSinks(),
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    ...workerCapacity(options.memoryMiB ?? defaultWorkerMemoryMiB()),
    ...(options.inlineWorkflows ? { debugMode: true } : {}),
    ...(options.activityPollers ? { maxConcurrentActivityTaskPolls: options.activityPollers } : {}),
    shutdownGraceTime: options.shutdownGraceTime ?? '10s',
    // A stop reaches a running command through its next heartbeat; keep that wait short.
    maxHeartbeatThrottleInterval: '2 seconds',
    defaultHeartbeatThrottleInterval: '2 seconds',
  });
}

/**
 * How this worker's threads start their runs: a client on the worker's own NativeConnection (with
 * the deployment's data converter), asking for eager workflow start, so a run's first workflow
 * task comes back to this worker in the start's answer instead of through the task queue.
 */
export function workerRunStarts(connection: NativeConnection, namespace: string, dataConverter?: DataConverter): RunStartDeps {
  return { client: createTemporalClient(connection, namespace, dataConverter ? { dataConverter } : {}), eager: true };
}

/** The worker's connection (same target as the clients'); a failure names the address and, in plain words, why. */
export async function connectWorker(target: TemporalTarget): Promise<NativeConnection> {
  const { address } = target;
  try {
    return await NativeConnection.connect({
      address,
      ...(target.tls ? { tls: target.tls } : {}),
      ...(target.apiKey ? { apiKey: target.apiKey } : {}),
      ...(target.metadata ? { metadata: target.metadata } : {}),
    });
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    const reason = /ConnectionRefused/.test(text)
      ? 'connection refused: nothing listens there'
      : /dns error/.test(text)
        ? 'the host name does not resolve'
        : text.split('\n')[0].slice(0, 200);
    throw new TemporalUnreachableError(address, error, { reason });
  }
}
/** What a worker may hold and run at once, derived from the memory it is given. */
export interface WorkerCapacity {
  reuseV8Context: true;
  maxCachedWorkflows: number;
  maxConcurrentWorkflowTaskExecutions: number;
  maxConcurrentActivityTaskExecutions: number;
  maxConcurrentLocalActivityExecutions: number;
}

/** MiB kept for the process itself: a worker-only process is 150–215 MB of RSS when ready (docs/performance.md). */
export const WORKER_BASE_MIB = 200;
/**
 * MiB of RSS a cached idle thread costs, measured with `npm run bench:idle` (docs/performance.md):
 * 2.6 MiB with the heap bounded (`--max-old-space-size=256`), of which ~1.2 MiB is live V8 heap
 * (each cached workflow keeps its own copy of the bundle's modules under reuseV8Context). With the
 * default heap limit, uncollected garbage makes it 4–4.5.
 */
export const CACHED_WORKFLOW_MIB = 2.5;

/**
 * The documented formula (docs/performance.md): the workflow cache gets what is left after
 * the base, at `CACHED_WORKFLOW_MIB` each, between 20 and 2,000; workflow tasks run up to
 * 40 at once (they are short and CPU-bound, so more only queue in the one V8 context);
 * activities (mostly waiting on models and commands) up to 100. An evicted workflow is
 * replayed from history when it is next needed, which is what bounds memory.
 */
export function workerCapacity(memoryMiB: number): WorkerCapacity {
  const cache = Math.floor(Math.max(0, memoryMiB - WORKER_BASE_MIB) / CACHED_WORKFLOW_MIB);
  const maxCachedWorkflows = Math.min(2_000, Math.max(20, cache));
  return {
    reuseV8Context: true,
    maxCachedWorkflows,
    maxConcurrentWorkflowTaskExecutions: Math.min(40, Math.max(2, Math.floor(maxCachedWorkflows / 4))),
    maxConcurrentActivityTaskExecutions: 100,
    maxConcurrentLocalActivityExecutions: 100,
  };
}

/** `SWITCHBOARD_WORKER_MEMORY_MB` when set, else the V8 heap limit of this process. */
export function defaultWorkerMemoryMiB(env: NodeJS.ProcessEnv = process.env): number {
  const configured = Number(env.SWITCHBOARD_WORKER_MEMORY_MB);
  if (Number.isFinite(configured) && configured > 0) return configured;
  return Math.floor(getHeapStatistics().heap_size_limit / (1024 * 1024));
}
