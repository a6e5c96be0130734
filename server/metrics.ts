import { type WorkflowClientInterceptor } from '@temporalio/client';
import { type RequestHandler } from 'express';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { STUCK_KINDS } from '../infra/stuck';

/** The kinds the stuck gauge always reports (0 included, so an alert rule sees the series): the set `switchboard stuck` lists. */
export { STUCK_KINDS };

/**
 * The front ends' own series (the Temporal runtime's come from Core, see infra/metrics.ts):
 * requests and how fast each front end answered (the "ack" Slack needs within 3 s), and how
 * long Temporal took to take each signal, signal-with-start and update.
 */
export class FrontEndMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'switchboard_http_requests_total',
    help: 'HTTP requests answered, by front end and status code',
    labelNames: ['front_end', 'status'] as const,
    registers: [this.registry],
  });
  private readonly acks = new Histogram({
    name: 'switchboard_http_ack_seconds',
    help: 'Time from a request to its answer (the ack), by front end',
    labelNames: ['front_end'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  private readonly signals = new Histogram({
    name: 'switchboard_temporal_signal_seconds',
    help: 'Time for Temporal to accept a signal, signal-with-start or update from a front end, by kind, message and outcome',
    labelNames: ['kind', 'name', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  /**
   * `switchboard_stuck_workflows{kind}`: our open workflows whose workflow task keeps failing
   * (infra/stuck.ts), read when scraped from `stuck` (which caches, since a look describes each
   * open workflow). Alert on any value above 0; `switchboard stuck` (or `runs list --stuck`) names the same set.
   */
  countStuck(stuck: () => Promise<Array<{ kind: string }>>, kinds: readonly string[] = STUCK_KINDS): void {
    new Gauge({
      name: 'switchboard_stuck_workflows',
      help: 'Open runs, units, threads, plans and resends whose workflow task keeps failing (see switchboard stuck)',
      labelNames: ['kind'] as const,
      registers: [this.registry],
      async collect() {
        const found = await stuck().catch(() => undefined);
        // Unknown (Temporal unreachable): no sample rather than a false zero.
        if (!found) return;
        for (const kind of kinds) this.set({ kind }, found.filter((each) => each.kind === kind).length);
      },
    });
  }

  /** Counts and times every request under `frontEnd` (the mount: `slack`, `github`, `api`, `mcp`, `health`). */
  middleware(frontEnd: string): RequestHandler {
    return (_req, res, next) => {
      const end = this.acks.startTimer({ front_end: frontEnd });
      res.once('finish', () => {
        end();
        this.requests.inc({ front_end: frontEnd, status: String(res.statusCode) });
      });
      next();
    };
  }

  /** A client interceptor timing each message the front ends send. */
  clientInterceptor(): WorkflowClientInterceptor {
    const timed = async <T>(kind: string, name: string, call: () => Promise<T>): Promise<T> => {
      const end = this.signals.startTimer({ kind, name });
      try {
        const result = await call();
        end({ outcome: 'ok' });
        return result;
      } catch (error) {
        end({ outcome: 'error' });
        throw error;
      }
    };
    return {
      signal: (input, next) => timed('signal', input.signalName, () => next(input)),
      signalWithStart: (input, next) => timed('signal_with_start', input.signalName, () => next(input)),
      startUpdate: (input, next) => timed('update', input.updateName, () => next(input)),
      startUpdateWithStart: (input, next) => timed('update_with_start', input.updateName, () => next(input)),
    };
  }
}
