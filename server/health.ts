import { type SandboxReadiness } from '../activities/sandbox/isolation';
import { type ServiceStatus } from '../infra/external-services';

/**
 * What `/healthz` reports. `ok` (200 vs 503) means "serving": Temporal answers and the worker
 * runs, and the sandbox can isolate (or is unisolated by choice). An outside service that is down makes the status `degraded`, still 200, because
 * everything else keeps working and a restart would not bring it back.
 */
export interface HealthReport {
  ok: boolean;
  status: 'ok' | 'degraded' | 'down';
  temporal: 'ok' | 'down';
  worker: 'running' | 'starting' | 'stopping' | 'stopped' | 'failed' | 'absent';
  namespace: string;
  taskQueue: string;
  /**
   * Whether shell commands are isolated (`bwrap`), run on the host by explicit configuration
   * (`unisolated`, healthy but said) or refused (`unavailable`: unhealthy, with the fix).
   */
  sandbox?: SandboxReadiness;
  /** Slack, GitHub, model APIs: each checked at start and retried in the background until it answers. */
  services: Record<string, Omit<ServiceStatus, 'name'>>;
  /** Workflows whose workflow task keeps failing (they make no progress): `degraded` while any exist. */
  stuck?: Array<{ workflowId: string; kind: string; attempts: number; reason?: string }>;
  /** Why the status is not `ok`, when it is not. */
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
  /** The outside services this process supervises (none when omitted). */
  services?(): ServiceStatus[];
  /** Stuck workflows (infra/stuck.ts), when this process can look. */
  stuck?(): Promise<Array<{ workflowId: string; kind: string; attempts: number; reason?: string }>>;
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
  // A sandbox that cannot isolate is not a degradation: shell agents are refused until it is fixed.
  if (!reason && sandbox && !sandbox.ready) reason = `sandbox unavailable: ${sandbox.reason}; ${sandbox.fix ?? ''}`.trim();
  const ok = !reason;
  const statuses = sources.services?.() ?? [];
  const services = Object.fromEntries(statuses.map(({ name, ...rest }) => [name, rest]));
  const notUp = statuses.filter((service) => service.state !== 'up');
  if (ok && notUp.length > 0) {
    reason = notUp.map((service) => `${service.name} ${service.state}${service.reason ? `: ${service.reason}` : ''}`).join('; ');
  }
  const stuck = temporal === 'ok' ? await sources.stuck?.().catch(() => []) : undefined;
  if (ok && stuck && stuck.length > 0) {
    const stuckReason = `${stuck.length} workflow(s) stuck (a workflow task keeps failing): ${stuck
      .slice(0, 3)
      .map((entry) => entry.workflowId)
      .join(', ')}; see \`switchboard stuck\``;
    reason = reason ? `${reason}; ${stuckReason}` : stuckReason;
  }
  const status = !ok ? 'down' : notUp.length > 0 || (stuck?.length ?? 0) > 0 ? 'degraded' : 'ok';
  const { namespace, taskQueue } = sources;
  return {
    ok,
    status,
    temporal,
    worker,
    namespace,
    taskQueue,
    services,
    ...(sandbox ? { sandbox } : {}),
    ...(stuck && stuck.length > 0 ? { stuck } : {}),
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
