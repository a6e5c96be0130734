import { tracingChoice } from '../infra/tracing';
import { ancestry, traceTree, type ReceivedSpan } from './helpers/otlp-receiver';
import { startTracedProduct, TRACED_BOT_TOKEN, TRACED_SIGNING_SECRET, type TracedProduct } from './helpers/traced-product';
import { waitUntil } from './helpers/wait';

jest.setTimeout(180_000);

const ASKED = 'say hello from the traced sandbox';

/**
 * Traces at the wire: `npm start`'s process with OTEL_EXPORTER_OTLP_ENDPOINT pointed at a local
 * OTLP receiver, a mention in the local Slack, and the spans that arrive: one trace from the Slack
 * request through the thread, the run, each model turn (GenAI attributes), each tool call, the
 * sandboxed command and the Slack writes. Nothing of the prompt or the secrets is in any span.
 */
describe('OpenTelemetry traces', () => {
  let traced: TracedProduct;
  beforeAll(async () => {
    traced = await startTracedProduct('traces');
  });
  afterAll(async () => traced?.close());

  it('one trace runs from a Slack mention to the run, its model turns, tool calls, command and Slack writes', async () => {
    const { receiver, product } = traced;
    const asked = await traced.say(`agent:explore model:scripted:examples/hello.yaml ${ASKED}`);
    const answered = await traced.answer(asked.ts, 'The sandbox answered');
    expect(answered.text).toContain('hello from the sandbox');

    // The run's own span is exported once the run has ended (workflow spans leave through the worker's sink).
    const spans = await waitUntil(
      async () => receiver.spans,
      // The thread's answer comes last (after the run's runEnded): wait for its span too.
      (all) =>
        ['RunWorkflow:agentRunWorkflow', 'sandbox exec', 'RunActivity:deliverReply'].every((name) =>
          all.some((span) => span.name === name),
        ),
      30_000,
    );
    const root = spans.find(
      (span) =>
        span.name === 'POST /slack/events' &&
        span.attributes['switchboard.front_end'] === 'slack' &&
        spans.some((other) => other.traceId === span.traceId && other.name === 'RunWorkflow:agentRunWorkflow'),
    )!;
    expect(root).toBeDefined();
    const trace = spans.filter((span) => span.traceId === root.traceId);
    const named = (name: string) => trace.filter((span) => span.name === name);
    const print = (span: ReceivedSpan) => {
      const at = (key: string) => JSON.stringify(span.attributes[key]);
      return [
        span.attributes['gen_ai.request.model'] ? `model ${at('gen_ai.request.model')}` : '',
        span.attributes['gen_ai.usage.input_tokens'] !== undefined
          ? `tokens in ${at('gen_ai.usage.input_tokens')} out ${at('gen_ai.usage.output_tokens')} cache read ${at('gen_ai.usage.cache_read.input_tokens')}`
          : '',
        span.attributes['gen_ai.tool.name'] ? `outcome ${at('switchboard.tool.outcome')}` : '',
        span.attributes['process.exit.code'] !== undefined ? `exit ${at('process.exit.code')}` : '',
      ]
        .filter(Boolean)
        .join(', ');
    };
    console.log(
      `The trace of a Slack mention (${root.traceId}), as the local OTLP receiver got it:\n${traceTree(spans, root.traceId, print)}`,
    );

    // The chain from the sandboxed command up to the Slack request, unbroken.
    const command = named('sandbox exec')[0];
    expect(ancestry(spans, command)).toEqual([
      'sandbox exec',
      'RunActivity:bash',
      'StartActivity:bash',
      'execute_tool bash',
      'RunWorkflow:agentRunWorkflow',
      // The thread starts its run by a local activity with eager start (docs/performance.md).
      'StartWorkflow:agentRunWorkflow',
      'RunActivity:startRun',
      'StartActivity:startRun',
      'SignalWithStartWorkflow:threadWorkflow',
      'POST /slack/events',
    ]);
    expect(command.attributes).toMatchObject({
      'process.exit.code': 0,
      'switchboard.sandbox.isolation': 'bwrap',
      'switchboard.sandbox.timed_out': false,
    });
    expect(root.kind).toBe(2);
    expect(root.resource).toMatchObject({ 'service.name': 'switchboard-traces-test', 'switchboard.role': 'all' });

    // Every model turn, with the GenAI conventions.
    const turns = named('chat examples/hello.yaml');
    expect(turns).toHaveLength(2);
    for (const turn of turns) {
      expect(ancestry(spans, turn).slice(1, 4)).toEqual([
        'RunActivity:modelTurn',
        'StartActivity:modelTurn',
        'RunWorkflow:agentRunWorkflow',
      ]);
      expect(turn.kind).toBe(3);
      expect(turn.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'scripted',
        'gen_ai.request.model': 'examples/hello.yaml',
        'gen_ai.usage.input_tokens': expect.any(Number),
        'gen_ai.usage.output_tokens': expect.any(Number),
        'gen_ai.usage.cache_read.input_tokens': expect.any(Number),
      });
    }
    // Every tool call, by name and outcome.
    expect(named('execute_tool update_status').map((span) => span.attributes['switchboard.tool.outcome'])).toEqual(['ok']);
    expect(named('execute_tool bash').map((span) => span.attributes)).toEqual([
      expect.objectContaining({ 'gen_ai.tool.name': 'bash', 'switchboard.tool.outcome': 'ok', 'gen_ai.tool.call.id': expect.any(String) }),
    ]);
    // The Slack writes: the card and the answer.
    expect(named('RunActivity:statusCard').length).toBeGreaterThan(0);
    expect(named('RunActivity:deliverReply').length).toBeGreaterThan(0);
    // The workflow spans carry the workflow's ids, never its memo or results.
    const run = named('RunWorkflow:agentRunWorkflow')[0];
    expect(run.attributes.workflowId).toMatch(/^run:thread:slack:/);
    expect(Object.keys(run.attributes).sort()).toEqual(['attempt', 'namespace', 'runId', 'taskQueue', 'workflowId', 'workflowType']);

    // Nothing of what was asked or of the secrets crossed the wire.
    const everything = JSON.stringify(receiver.spans.map((span) => [span.name, span.attributes, span.resource]));
    for (const secret of [ASKED, TRACED_BOT_TOKEN, TRACED_SIGNING_SECRET, 'hello from the sandbox'])
      expect(everything).not.toContain(secret);
    expect(receiver.requests['application/x-protobuf']).toBeGreaterThan(0);

    // Log lines written while handling it carry the trace's ids.
    const lines = product
      .output()
      .split('\n')
      .filter((line) => line.includes(`"trace_id":"${root.traceId}"`));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => /"span_id":"[0-9a-f]{16}"/.test(line))).toBe(true);
  });

  it('a reply in the thread is a trace of its own, through the thread to the run it starts', async () => {
    const asked = await traced.say('agent:explore model:scripted:examples/hello.yaml a first question');
    await traced.answer(asked.ts, 'The sandbox answered');
    await traced.say('model:scripted:examples/hello.yaml and a follow-up', asked.ts);
    const spans = await waitUntil(
      async () => traced.receiver.spans,
      (all) =>
        all.some((span) => span.name === 'RunWorkflow:agentRunWorkflow' && String(span.attributes.workflowId).endsWith(`${asked.ts}:2`)),
      60_000,
    );
    const second = spans.find(
      (span) => span.name === 'RunWorkflow:agentRunWorkflow' && String(span.attributes.workflowId).endsWith(`${asked.ts}:2`),
    )!;
    const first = spans.find(
      (span) => span.name === 'RunWorkflow:agentRunWorkflow' && String(span.attributes.workflowId).endsWith(`${asked.ts}:1`),
    )!;
    // The follow-up's run hangs off the reply's own request, not the first mention's.
    expect(second.traceId).not.toBe(first.traceId);
    expect(ancestry(spans, second)).toEqual([
      'RunWorkflow:agentRunWorkflow',
      // The thread starts its run by a local activity with eager start (docs/performance.md).
      'StartWorkflow:agentRunWorkflow',
      'RunActivity:startRun',
      'StartActivity:startRun',
      'SignalWorkflow:message',
      'POST /slack/events',
    ]);
    console.log(`The trace of the reply:\n${traceTree(spans, second.traceId)}`);
  });

  it('is off unless an OTEL_* variable asks for it, and says so for what it cannot honour', () => {
    expect(tracingChoice({})).toEqual({ off: 'off (no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER)' });
    expect(tracingChoice({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual({
      exporter: 'otlp',
      protocol: 'http/protobuf',
      endpoint: 'http://c:4318',
    });
    expect(tracingChoice({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual({
      exporter: 'otlp',
      protocol: 'http/json',
    });
    expect(tracingChoice({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toEqual({
      off: 'off (OTEL_SDK_DISABLED=true)',
    });
    expect(tracingChoice({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toEqual({
      off: 'off (OTEL_TRACES_EXPORTER=none)',
    });
    expect(() => tracingChoice({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported here; use http\/protobuf \(the default\) or http\/json/,
    );
    expect(() => tracingChoice({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER: zipkin is not supported here/);
  });
});
