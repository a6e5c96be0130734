import { createRequire } from 'node:module';
import pino from 'pino';
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
  const base = { level: options.level ?? 'info', base: { service: 'switchboard' } };
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

/** Adapts our logger to the interface the Temporal SDK logs through. */
export function temporalLogger(logger: Logger): TemporalLogger {
  const write = (level: LogLevel, message: string, meta?: LogMetadata) => {
    const method = level.toLowerCase() as 'trace' | 'debug' | 'info' | 'warn' | 'error';
    logger[method]({ ...meta, component: 'temporal' }, message);
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
    ...(options.prometheusBindAddress
      ? {
          telemetryOptions: {
            metrics: {
              prometheus: { bindAddress: options.prometheusBindAddress, countersTotalSuffix: true, useSecondsForDurations: true },
            },
          },
        }
      : {}),
  });
  installed = true;
}
