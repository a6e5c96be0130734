import { existsSync } from 'node:fs';
import { type Duration } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { SwitchboardError, TemporalUnreachableError } from './errors';
import { type Logger } from './logger';
import { type TemporalTarget } from './temporal-connection';
import { workflowBundlePath } from './paths';

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
    shutdownGraceTime: options.shutdownGraceTime ?? '10s',
    // A stop reaches a running command through its next heartbeat; keep that wait short.
    maxHeartbeatThrottleInterval: '2 seconds',
    defaultHeartbeatThrottleInterval: '2 seconds',
  });
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
