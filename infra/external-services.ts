import { type Logger } from './logger';

/** `starting`: the first check is under way; `up`: it passed; `degraded`: it failed and is retried. */
export type ServiceState = 'starting' | 'up' | 'degraded';

/** One external service as `/healthz` shows it. */
export interface ServiceStatus {
  name: string;
  state: ServiceState;
  /** Why it is not up: the last failure, in words. */
  reason?: string;
  /** Failed checks since the last success. */
  failures: number;
  /** When the next check runs, while degraded. */
  retryAt?: string;
  /** When it last came up. */
  upSince?: string;
}

export interface RetryPolicy {
  /** Wait after the first failure; doubles after each further one. */
  initialMs: number;
  /** The longest wait between checks. */
  maxMs: number;
}

/** A service we depend on but can serve without: Slack, GitHub, a model API. */
export interface ServiceCheck {
  name: string;
  /** Starts or checks the service: resolves when it works, rejects with why not. */
  check(): Promise<void>;
  /** The failure in words for `/healthz` (default: the error's first line). */
  describe?(error: unknown): string;
}

interface Entry {
  status: ServiceStatus;
  timer?: NodeJS.Timeout;
  lastReason?: string;
}

/**
 * Keeps the process serving while an outside service is down: each check runs in the
 * background and, while it fails, again after a growing wait (with jitter), until it passes
 * or the process stops. Only Temporal is fatal at start; nothing here ever throws.
 */
export class ExternalServices {
  private readonly entries = new Map<string, Entry>();
  private stopped = false;
  private readonly retry: RetryPolicy;

  constructor(private readonly options: { logger: Logger; retry?: Partial<RetryPolicy> }) {
    this.retry = { initialMs: options.retry?.initialMs ?? 1_000, maxMs: options.retry?.maxMs ?? 60_000 };
  }

  /** Starts checking a service now; the first result and every retry happen in the background. */
  supervise(service: ServiceCheck): void {
    if (this.entries.has(service.name)) throw new Error(`service ${service.name} is already supervised`);
    const entry: Entry = { status: { name: service.name, state: 'starting', failures: 0 } };
    this.entries.set(service.name, entry);
    void this.attempt(service, entry);
  }

  /** Every supervised service, in the order they were added. */
  statuses(): ServiceStatus[] {
    return [...this.entries.values()].map((entry) => ({ ...entry.status }));
  }

  /** Cancels pending retries; a check in flight finishes but changes nothing. */
  stop(): void {
    this.stopped = true;
    for (const entry of this.entries.values()) clearTimeout(entry.timer);
  }

  private async attempt(service: ServiceCheck, entry: Entry): Promise<void> {
    const log = this.options.logger;
    try {
      await service.check();
      if (this.stopped) return;
      const failures = entry.status.failures;
      entry.status = { name: service.name, state: 'up', failures: 0, upSince: new Date().toISOString() };
      entry.lastReason = undefined;
      if (failures > 0) log.info({ service: service.name, failures }, `${service.name} is up again`);
      else log.info({ service: service.name }, `${service.name} is up`);
    } catch (error) {
      if (this.stopped) return;
      const reason = (service.describe ?? firstLine)(error);
      const failures = entry.status.failures + 1;
      const waitMs = this.waitAfter(failures);
      const retryAt = new Date(Date.now() + waitMs).toISOString();
      entry.status = { name: service.name, state: 'degraded', reason, failures, retryAt };
      // The first failure and any change of reason are worth a warning; repeats are debug.
      const level = failures === 1 || reason !== entry.lastReason ? 'warn' : 'debug';
      entry.lastReason = reason;
      log[level](
        { service: service.name, failures, retryInMs: waitMs },
        `${service.name} is degraded: ${reason}; everything else keeps serving, retrying in ${Math.round(waitMs / 1000)} s`,
      );
      entry.timer = setTimeout(() => void this.attempt(service, entry), waitMs);
      entry.timer.unref();
    }
  }

  private waitAfter(failures: number): number {
    const base = Math.min(this.retry.maxMs, this.retry.initialMs * 2 ** Math.min(failures - 1, 30));
    // ±20 % so many processes restarted together do not retry in step.
    return Math.max(1, Math.round(base * (0.8 + Math.random() * 0.4)));
  }
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}
