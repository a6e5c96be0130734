/**
 * Traces inside the workflow sandbox, through Temporal's OpenTelemetry workflow interceptors
 * (@temporalio/interceptors-opentelemetry), registered for every workflow by the bundle
 * (infra/build-bundle.ts) but switched on per workflow: a workflow is traced when the call that
 * started it carried a trace context (its start headers hold `_tracer-data`), which a client
 * adds only where OTEL_* configures tracing (infra/tracing.ts). An untraced workflow passes
 * every call straight through and never even loads OpenTelemetry, so a deployment without
 * tracing pays nothing; and since the choice is read from the history, a replay makes it again.
 *
 * Spans change no command: they leave through the worker's `exporter` sink, which is not called
 * during replay. Threads, units and plans live for days, so they get no span of their own (it
 * would stay open, and unexported, as long as they do): their work hangs off the call that caused
 * it — the start, or for a thread each message's own signal (`followMessage`).
 */
import type {
  ActivityInput,
  ContinueAsNewInput,
  GetLogAttributesInput,
  LocalActivityInput,
  Next,
  SignalInput,
  SignalWorkflowInput,
  StartChildWorkflowExecutionInput,
  UpdateInput,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptorsFactory,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { workflowInfo } from '@temporalio/workflow';
import type * as OtelApi from '@opentelemetry/api';
import type * as OtelWorkflow from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type * as OtelInstrumentation from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import { planWorkflowType, shipUnitWorkflowType, threadWorkflowType } from '../contracts';

/** The header Temporal's OpenTelemetry interceptors carry a span context in (their `TRACE_HEADER`). */
export const TRACE_HEADER = '_tracer-data';

/** Workflow types that outlive any one trace: no span of their own. */
const LONG_LIVED = new Set<string>([threadWorkflowType.name, shipUnitWorkflowType.name, planWorkflowType.name]);

interface Loaded {
  api: typeof OtelApi;
  instrumentation: typeof OtelInstrumentation;
  inbound: OtelWorkflow.OpenTelemetryInboundInterceptor;
  outbound: OtelWorkflow.OpenTelemetryOutboundInterceptor;
  internals: OtelWorkflow.OpenTelemetryInternalsInterceptor;
}

// Per workflow: the bundle's modules are evaluated once for each workflow (reuseV8Context keeps them apart).
let loaded: Loaded | undefined;
let traced = false;
/** The context work is started in for a long-lived workflow: its start, then the message it is on. */
let current: OtelApi.Context | undefined;
const messages = new Map<string, OtelApi.Context>();

/** OpenTelemetry, loaded the first time a traced workflow needs it (an untraced one never evaluates it). */
function otel(): Loaded {
  if (!loaded) {
    /* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily, only in a traced workflow */
    const workflow = require('@temporalio/interceptors-opentelemetry/lib/workflow') as typeof OtelWorkflow;
    loaded = {
      api: require('@opentelemetry/api') as typeof OtelApi,
      instrumentation: require('@temporalio/interceptors-opentelemetry/lib/instrumentation') as typeof OtelInstrumentation,
      inbound: new workflow.OpenTelemetryInboundInterceptor(),
      outbound: new workflow.OpenTelemetryOutboundInterceptor(),
      internals: new workflow.OpenTelemetryInternalsInterceptor(),
    };
    /* eslint-enable @typescript-eslint/no-require-imports */
  }
  return loaded;
}

/** Whether this workflow is traced (its start carried a trace context). */
export function isTraced(): boolean {
  return traced;
}

/**
 * A thread takes up a message: what it starts now (the run, a unit, the replies) joins the trace
 * of the call that sent the message, when that call was traced. Returns the id, so the thread
 * notes the message it is deciding and follows it in one step.
 */
export function followMessage(messageId: string): string {
  if (!traced) return messageId;
  const context = messages.get(messageId);
  messages.delete(messageId);
  if (context) current = context;
  return messageId;
}

/**
 * One tool call as a GenAI `execute_tool` span (its name, call id and outcome; never its input or
 * output), around whatever the executor schedules. Untraced: just the call.
 */
export async function traceTool<T extends { isError?: boolean }>(
  call: { id: string; name: string },
  execute: () => Promise<T>,
): Promise<T> {
  if (!traced) return execute();
  const { api } = otel();
  const tracer = api.trace.getTracer('switchboard');
  return tracer.startActiveSpan(
    `execute_tool ${call.name}`,
    { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': call.name, 'gen_ai.tool.call.id': call.id } },
    async (span) => {
      try {
        const result = await execute();
        span.setAttribute('switchboard.tool.outcome', result.isError ? 'error' : 'ok');
        if (result.isError) span.setStatus({ code: api.SpanStatusCode.ERROR, message: 'the tool answered with an error' });
        return result;
      } catch (error) {
        span.setAttribute('switchboard.tool.outcome', 'failed');
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'failed' });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Runs `fn` in the long-lived workflow's current context (its start or its message), else as it is. */
function inCurrent<T>(fn: () => T): T {
  return current ? otel().api.context.with(current, fn) : fn();
}

const inbound: WorkflowInboundCallsInterceptor = {
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>) {
    if (!(TRACE_HEADER in input.headers)) return next(input);
    traced = true;
    const { inbound: otelInbound, instrumentation } = otel();
    if (!LONG_LIVED.has(workflowInfo().workflowType)) return otelInbound.execute(input, next);
    current = instrumentation.extractContextFromHeaders(input.headers);
    return next(input);
  },
  async handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>) {
    if (!traced || !(TRACE_HEADER in input.headers)) return next(input);
    remember(input.args[0], input.headers);
    return otel().inbound.handleSignal(input, next);
  },
  async handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>) {
    if (!traced || !(TRACE_HEADER in input.headers)) return next(input);
    remember(input.args[0], input.headers);
    return otel().inbound.handleUpdate(input, next);
  },
};

/** A thread's message (anything with a `messageId`) keeps the context of the call that sent it. */
function remember(message: unknown, headers: SignalInput['headers']): void {
  if (!LONG_LIVED.has(workflowInfo().workflowType)) return;
  const messageId = (message as { messageId?: unknown } | undefined)?.messageId;
  const context = typeof messageId === 'string' ? otel().instrumentation.extractContextFromHeaders(headers) : undefined;
  if (context) messages.set(messageId as string, context);
}

const outbound: WorkflowOutboundCallsInterceptor = {
  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) {
    return traced ? inCurrent(() => otel().outbound.scheduleActivity(input, next)) : next(input);
  },
  scheduleLocalActivity(input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>) {
    return traced ? inCurrent(() => otel().outbound.scheduleLocalActivity(input, next)) : next(input);
  },
  startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ) {
    return traced ? inCurrent(() => otel().outbound.startChildWorkflowExecution(input, next)) : next(input);
  },
  continueAsNew(input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>) {
    return traced ? inCurrent(() => otel().outbound.continueAsNew(input, next)) : next(input);
  },
  signalWorkflow(input: SignalWorkflowInput, next: Next<WorkflowOutboundCallsInterceptor, 'signalWorkflow'>) {
    return traced ? inCurrent(() => otel().outbound.signalWorkflow(input, next)) : next(input);
  },
  // Workflow log lines carry the trace and span ids of what they are part of.
  getLogAttributes(input: GetLogAttributesInput, next: Next<WorkflowOutboundCallsInterceptor, 'getLogAttributes'>) {
    return traced ? inCurrent(() => otel().outbound.getLogAttributes(input, next)) : next(input);
  },
};

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [inbound],
  outbound: [outbound],
  internals: [
    {
      dispose(input, next) {
        // OpenTelemetry's own dispose (it stops its context storage, then calls next) is async for no reason of ours.
        if (loaded) loaded.internals.dispose(input, next).catch(() => undefined);
        else next(input);
      },
    },
  ],
});
