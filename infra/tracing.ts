import { hostname } from 'node:os';
import { context, propagation, trace, type TextMapPropagator } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { detectResourcesSync, envDetectorSync, Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, ConsoleSpanExporter, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { type WorkflowClientInterceptor } from '@temporalio/client';
import { type InjectedSinks, type WorkerInterceptors } from '@temporalio/worker';
import { ConfigError } from './errors';
import type * as TemporalOtel from '@temporalio/interceptors-opentelemetry';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as OtlpProto from '@opentelemetry/exporter-trace-otlp-proto';

/**
 * Traces, configured by OpenTelemetry's standard variables and off when none asks for them.
 * On when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, or
 * OTEL_TRACES_EXPORTER is `otlp` (or `console`); off with OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER=none. OTLP over HTTP, protobuf by default (OTEL_EXPORTER_OTLP_PROTOCOL
 * `http/protobuf` or `http/json`); the exporter reads its endpoint, headers, timeout and
 * compression from the same variables, the batch processor OTEL_BSP_*, the sampler
 * OTEL_TRACES_SAMPLER, the resource OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
 *
 * One process-wide installation (`installTracing`) feeds the one place each Temporal piece is
 * made: client interceptors in `createTemporalClient`, the activity interceptors and the workflow
 * span sink in `createSwitchboardWorker`; the workflows' own interceptors are in the bundle
 * (workflows/tracing/).
 */
export interface Tracing {
  enabled: boolean;
  /** What is exported, in words (`OTLP http/protobuf to http://…`, or why it is off). */
  description: string;
  clientInterceptors(): WorkflowClientInterceptor[];
  workerInterceptors(): WorkerInterceptors;
  /** The `exporter` sink the workflows' spans leave through (a no-op when off: a traced start may still reach this worker). */
  workerSinks(): InjectedSinks<Record<string, never>>;
  /** Flushes what is buffered and stops exporting. */
  shutdown(): Promise<void>;
}

const OFF_SINKS = { exporter: { export: { fn: () => undefined } } };

function off(description: string): Tracing {
  return {
    enabled: false,
    description,
    clientInterceptors: () => [],
    workerInterceptors: () => ({}),
    workerSinks: () => OFF_SINKS as unknown as InjectedSinks<Record<string, never>>,
    shutdown: async () => undefined,
  };
}

let installed: Tracing | undefined;

/** The process's tracing: what `installTracing` set up, else off. */
export function processTracing(): Tracing {
  return installed ?? off('off');
}

/** What the variables ask for: an exporter, or why tracing is off. A value we cannot honour is a ConfigError. */
export function tracingChoice(
  env: NodeJS.ProcessEnv,
): { exporter: 'otlp' | 'console'; protocol?: 'http/protobuf' | 'http/json'; endpoint?: string } | { off: string } {
  if (/^true$/i.test(env.OTEL_SDK_DISABLED ?? '')) return { off: 'off (OTEL_SDK_DISABLED=true)' };
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((each) => each.trim())
    .filter(Boolean);
  if (exporters.includes('none')) return { off: 'off (OTEL_TRACES_EXPORTER=none)' };
  const unknown = exporters.filter((each) => each !== 'otlp' && each !== 'console');
  if (unknown.length > 0)
    throw new ConfigError([`OTEL_TRACES_EXPORTER: ${unknown.join(', ')} is not supported here; use otlp, console or none`]);
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (exporters.length === 0 && !endpoint) return { off: 'off (no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER)' };
  if (exporters.length === 1 && exporters[0] === 'console') return { exporter: 'console' };
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new ConfigError([`OTEL_EXPORTER_OTLP_PROTOCOL: ${protocol} is not supported here; use http/protobuf (the default) or http/json`]);
  }
  return { exporter: 'otlp', protocol, ...(endpoint ? { endpoint } : {}) };
}

/**
 * Sets up tracing for this process from `env` (the process's own), once: the tracer provider
 * with the W3C trace-context propagator and an async-local context, so a span started by a front
 * end is the parent of the Temporal calls made while handling it. Returns what was set up.
 */
export function installTracing(env: NodeJS.ProcessEnv = process.env, role = 'switchboard'): Tracing {
  if (installed) return installed;
  const choice = tracingChoice(env);
  if ('off' in choice) return (installed = off(choice.off));
  const exporter: SpanExporter = choice.exporter === 'console' ? new ConsoleSpanExporter() : otlpExporter(choice.protocol!);
  const resource = new Resource({
    'service.name': 'switchboard',
    'service.instance.id': `${hostname()}:${process.pid}`,
    'switchboard.role': role,
  }).merge(detectResourcesSync({ detectors: [envDetectorSync] }));
  const processor = new BatchSpanProcessor(exporter);
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  const propagator: TextMapPropagator = new CompositePropagator({
    propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
  });
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable(), propagator });
  // Loaded only when tracing is on: a process without it never loads the interceptors.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const temporal = require('@temporalio/interceptors-opentelemetry') as typeof TemporalOtel;
  const where = choice.exporter === 'console' ? 'the console' : `OTLP ${choice.protocol} to ${choice.endpoint ?? 'http://localhost:4318'}`;
  installed = {
    enabled: true,
    description: `on: spans go to ${where}`,
    clientInterceptors: () => [new temporal.OpenTelemetryWorkflowClientInterceptor()],
    workerInterceptors: () => ({
      activity: [
        (ctx) => ({
          inbound: new temporal.OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new temporal.OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    }),
    workerSinks: () =>
      ({
        exporter: withIdsOnly(temporal.makeWorkflowExporter(processor, resource) as unknown as Parameters<typeof withIdsOnly>[0]),
      }) as unknown as InjectedSinks<Record<string, never>>,
    async shutdown() {
      await provider.shutdown().catch(() => undefined);
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
  return installed;
}

function otlpExporter(protocol: 'http/protobuf' | 'http/json'): SpanExporter {
  /* eslint-disable @typescript-eslint/no-require-imports -- one of the two, loaded only when asked for */
  if (protocol === 'http/json') {
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
    return new OTLPTraceExporter();
  }
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto') as typeof OtlpProto;
  /* eslint-enable @typescript-eslint/no-require-imports */
  return new OTLPTraceExporter();
}

/** The workflow info Temporal's sink copies onto each workflow span that may stay there: ids, never a memo or a result. */
const WORKFLOW_INFO_KEPT = ['workflowId', 'runId', 'workflowType', 'taskQueue', 'namespace', 'attempt'] as const;

/**
 * Temporal's workflow sink puts every field of the workflow's info on its spans; a memo, a last
 * result or search attributes could carry what a person wrote. It is handed the ids alone.
 */
function withIdsOnly(sink: { export: { fn: (info: Record<string, unknown>, spans: unknown) => void } }) {
  return {
    ...sink,
    export: {
      ...sink.export,
      fn: (info: Record<string, unknown>, spans: unknown) => {
        const kept: Record<string, unknown> = {};
        for (const key of WORKFLOW_INFO_KEPT) if (typeof info[key] === 'string' || typeof info[key] === 'number') kept[key] = info[key];
        sink.export.fn(kept, spans);
      },
    },
  };
}
