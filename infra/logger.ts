import { createRequire } from 'node:module';
import pino from 'pino';
import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import type PinoPretty from 'pino-pretty';
import { type LogLevel, type LogMetadata, type Logger as TemporalLogger } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';

export type Logger = pino.Logger;

export interface LoggerOptions {
  level?: string;
  /** `auto` is readable in a terminal and JSON lines otherwise (production, CI). */
  format?: 'auto' | 'json' | 'pretty';
  /** Where lines go; stdout by default. */
  destination?: NodeJS.WritableStream;
}

/** The one logger shared by the server, the worker and the Temporal runtime. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? process.stdout;
  const format = options.format ?? 'auto';
  const readable = format === 'pretty' || (format === 'auto' && Boolean((destination as NodeJS.WriteStream).isTTY));
  const base: pino.LoggerOptions = {
    level: options.level ?? 'info',
    base: { service: 'switchboard' },
    // An error is written out wherever it is passed (`err`, `error`, `cause`, any field), never as `{}`.
    formatters: { log: serializeErrors },
    // A line written while a traced span is active (a request, an activity) names it: trace_id, span_id.
    mixin: traceIds,
    serializers: { err: (value: unknown) => (isErrorLike(value) ? serializeError(value) : value) },
  };
  if (readable) {
    // Loaded only for a terminal: workers and servers in production log JSON lines and skip it.
    const pretty = createRequire(__filename)('pino-pretty') as typeof PinoPretty;
    return pino(
      base,
      pretty({ destination, sync: true, colorize: (destination as NodeJS.WriteStream).isTTY, ignore: 'pid,hostname,service' }),
    );
  }
  return pino(base, destination);
}

/** The active span's ids, when tracing is on and a span is active (infra/tracing.ts); else nothing. */
export function traceIds(): Record<string, string> {
  const span = trace.getSpan(context.active())?.spanContext();
  if (!span || !isSpanContextValid(span)) return {};
  return { trace_id: span.traceId, span_id: span.spanId };
}

/** An error as a log field: its type, message, stack and, in turn, its cause (and a Temporal failure's code). */
export interface SerializedError {
  type: string;
  message: string;
  stack?: string;
  /** An `ApplicationFailure`'s type (our failure code) or a system error's code. */
  code?: string;
  nonRetryable?: boolean;
  cause?: SerializedError;
}

/**
 * Whether a value is an error, also one from another realm (the workflow sandbox's errors come
 * through the SDK's log sink as objects that are not `instanceof Error` here).
 */
export function isErrorLike(value: unknown): value is Error {
  return value instanceof Error || Object.prototype.toString.call(value) === '[object Error]';
}

export function serializeError(error: Error, depth = 0): SerializedError {
  const extra = error as Error & { type?: unknown; code?: unknown; nonRetryable?: unknown; cause?: unknown };
  const code = typeof extra.type === 'string' ? extra.type : typeof extra.code === 'string' ? extra.code : undefined;
  return {
    type: error.name || error.constructor?.name || 'Error',
    message: error.message,
    ...(error.stack ? { stack: error.stack } : {}),
    ...(code ? { code } : {}),
    ...(typeof extra.nonRetryable === 'boolean' ? { nonRetryable: extra.nonRetryable } : {}),
    ...(isErrorLike(extra.cause) && depth < 5 ? { cause: serializeError(extra.cause, depth + 1) } : {}),
  };
}

/** Every error among a log line's fields (and one level into plain objects), serialised. */
export function serializeErrors(fields: Record<string, unknown>): Record<string, unknown> {
  let changed: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(fields)) {
    let next: unknown = value;
    if (isErrorLike(value)) next = serializeError(value);
    else if (value && typeof value === 'object' && !Array.isArray(value) && Object.values(value).some(isErrorLike)) {
      next = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isErrorLike(v) ? serializeError(v) : v]));
    }
    if (next !== value) (changed ??= { ...fields })[key] = next;
  }
  return changed ?? fields;
}

/**
 * The SDK logs "Workflow failed" when a workflow's code throws: a Temporal failure fails the
 * workflow, anything else fails only its current workflow task, which Temporal retries for
 * ever (the workflow is stuck until a fix is deployed). The line then says which it was, which
 * workflow, and why.
 */
function workflowFailureMessage(message: string, meta: LogMetadata | undefined): string {
  const error = meta?.error;
  if (message !== 'Workflow failed' || !isErrorLike(error)) return message;
  const which = [meta?.workflowType, meta?.workflowId].filter(Boolean).join(' ');
  if (/Failure$/.test(error.name)) return `Workflow failed: ${which}: ${error.message}`;
  return `Workflow task failed (Temporal retries it until a fix is deployed; \`switchboard stuck\` lists it): ${which}: ${error.name}: ${error.message}`;
}

/** Adapts our logger to the interface the Temporal SDK logs through. */
export function temporalLogger(logger: Logger): TemporalLogger {
  const write = (level: LogLevel, message: string, meta?: LogMetadata) => {
    const method = level.toLowerCase() as 'trace' | 'debug' | 'info' | 'warn' | 'error';
    logger[method]({ ...meta, component: 'temporal' }, workflowFailureMessage(message, meta));
  };
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}

let installed = false;

/**
 * Routes the Temporal runtime's logs (SDK, workflow and activity context loggers) through
 * our logger and, with `prometheusBindAddress`, exports its metrics there (infra/metrics.ts
 * serves them with ours). The runtime can be installed once per process; later calls are no-ops.
 */
export function installTemporalRuntime(logger: Logger, options: { prometheusBindAddress?: string; sigusr2?: 'memory-report' } = {}): void {
  if (installed) return;
  Runtime.install({
    logger: temporalLogger(logger),
    // The SDK shuts its workers down on SIGUSR2 too, unless the memory report (memory-report.ts) uses it.
    ...(options.sigusr2 ? { shutdownSignals: ['SIGINT', 'SIGTERM', 'SIGQUIT'] } : {}),
    telemetryOptions: {
      // The SDK core's own warnings ("Failing workflow task …") come through our logger as well,
      // as JSON lines like every other, instead of being printed to the console on their own.
      logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
      ...(options.prometheusBindAddress
        ? {
            metrics: {
              prometheus: { bindAddress: options.prometheusBindAddress, countersTotalSuffix: true, useSecondsForDurations: true },
            },
          }
        : {}),
    },
  });
  installed = true;
}
