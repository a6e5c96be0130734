import { type SandboxReadiness } from '../activities/sandbox/isolation';

/** What `/healthz` reports; `ok` decides 200 vs 503. */
export interface HealthReport {
  ok: boolean;
  temporal: 'ok' | 'down';
  worker: 'running' | 'starting' | 'stopping' | 'stopped' | 'failed' | 'absent';
  namespace: string;
  taskQueue: string;
  /**
   * Whether shell commands are isolated (`bwrap`), run on the host by explicit configuration
   * (`unisolated`, healthy but said) or refused (`unavailable`: unhealthy, with the fix).
   */
  sandbox?: SandboxReadiness;
  /** Why the service is unhealthy, when it is. */
  reason?: string;
}

export interface HealthSources {
  namespace: string;
  taskQueue: string;
  /** Resolves when Temporal answers; rejects with the reason otherwise. */
  pingTemporal(): Promise<void>;
  /** The worker's state, or undefined when this process runs no worker. */
  workerState(): string | undefined;
  /** The sandbox's readiness, when this process runs a worker. */
  sandbox?(): Promise<SandboxReadiness>;
}

/** Builds the health report from live probes; never throws. */
export async function checkHealth(sources: HealthSources): Promise<HealthReport> {
  let temporal: HealthReport['temporal'] = 'ok';
  let reason: string | undefined;
  try {
    await sources.pingTemporal();
  } catch (error) {
    temporal = 'down';
    reason = `Temporal unreachable: ${error instanceof Error ? error.message : String(error)}`;
  }
  const worker = toWorkerHealth(sources.workerState());
  if (!reason && (worker === 'failed' || worker === 'stopped')) reason = `worker is ${worker}`;
  const sandbox = await sources.sandbox?.().catch((error: unknown): SandboxReadiness => ({
    mode: 'unavailable',
    ready: false,
    reason: error instanceof Error ? error.message : String(error),
  }));
  if (!reason && sandbox && !sandbox.ready) reason = `sandbox unavailable: ${sandbox.reason}; ${sandbox.fix ?? ''}`.trim();
  return {
    ok: !reason,
    temporal,
    worker,
    namespace: sources.namespace,
    taskQueue: sources.taskQueue,
    ...(sandbox ? { sandbox } : {}),
    ...(reason ? { reason } : {}),
  };
}

function toWorkerHealth(state: string | undefined): HealthReport['worker'] {
  switch (state) {
    case undefined:
      return 'absent';
    case 'RUNNING':
      return 'running';
    case 'INITIALIZED':
      return 'starting';
    case 'STOPPING':
    case 'DRAINING':
    case 'DRAINED':
      return 'stopping';
    case 'FAILED':
      return 'failed';
    default:
      return 'stopped';
  }
}
