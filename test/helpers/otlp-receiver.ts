import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One span as the receiver decoded it from the wire. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  startNs: bigint;
  endNs: bigint;
  status: { code: number; message?: string };
  /** The resource's attributes (service.name, switchboard.role, …). */
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT (the exporters add `/v1/traces`). */
  endpoint: string;
  spans: ReceivedSpan[];
  /** How many export requests came, by content type. */
  requests: Record<string, number>;
  close(): Promise<void>;
}

type ProtoRoot = {
  opentelemetry: {
    proto: {
      collector: {
        trace: {
          v1: { ExportTraceServiceRequest: { decode(bytes: Uint8Array): unknown; toObject(message: unknown, options: object): unknown } };
        };
      };
    };
  };
};

/**
 * A local OTLP/HTTP trace receiver, as a collector would be: `POST /v1/traces` in protobuf
 * (decoded with OpenTelemetry's own generated definitions) or JSON, gzip or not; it keeps every
 * span it is sent. The test reads what crossed the wire, not what the SDK meant to send.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const root = require('@opentelemetry/otlp-transformer/build/src/generated/root') as ProtoRoot;
  const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
  const spans: ReceivedSpan[] = [];
  const requests: Record<string, number> = {};
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const type = String(req.headers['content-type'] ?? '').split(';')[0];
      requests[type] = (requests[type] ?? 0) + 1;
      try {
        const message =
          type === 'application/x-protobuf'
            ? (Request.toObject(Request.decode(body), { longs: String, bytes: String, defaults: false }) as Export)
            : (JSON.parse(body.toString('utf8')) as Export);
        spans.push(...flatten(message, type === 'application/x-protobuf'));
        res.writeHead(200, { 'content-type': type }).end(type === 'application/json' ? '{}' : undefined);
      } catch (error) {
        res.writeHead(400).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface WireValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: WireValue[] };
}
type WireAttributes = Array<{ key: string; value: WireValue }> | undefined;
interface Export {
  resourceSpans?: Array<{
    resource?: { attributes?: WireAttributes };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        attributes?: WireAttributes;
        startTimeUnixNano: string | number;
        endTimeUnixNano: string | number;
        status?: { code?: number; message?: string };
      }>;
    }>;
  }>;
}

function flatten(message: Export, base64Ids: boolean): ReceivedSpan[] {
  // Protobuf bytes come back base64 from toObject; OTLP/JSON carries ids as hex already.
  const id = (value: string | undefined) => (!value ? '' : base64Ids ? Buffer.from(value, 'base64').toString('hex') : value.toLowerCase());
  return (message.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: id(span.traceId),
        spanId: id(span.spanId),
        parentSpanId: id(span.parentSpanId),
        name: span.name,
        kind: Number(span.kind ?? 0),
        attributes: attributesOf(span.attributes),
        startNs: BigInt(span.startTimeUnixNano),
        endNs: BigInt(span.endTimeUnixNano),
        status: { code: Number(span.status?.code ?? 0), ...(span.status?.message ? { message: span.status.message } : {}) },
        resource,
      })),
    );
  });
}

function attributesOf(list: WireAttributes): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

function valueOf(value: WireValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

/** The spans of one trace as an indented tree (children by start time), one line each, for the test's output. */
export function traceTree(spans: ReceivedSpan[], traceId: string, describe: (span: ReceivedSpan) => string = () => ''): string {
  const mine = spans.filter((span) => span.traceId === traceId);
  const ids = new Set(mine.map((span) => span.spanId));
  const children = new Map<string, ReceivedSpan[]>();
  for (const span of mine) {
    const parent = ids.has(span.parentSpanId) ? span.parentSpanId : '';
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (parent: string, depth: number) => {
    for (const span of (children.get(parent) ?? []).sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0))) {
      const ms = Number(span.endNs - span.startNs) / 1e6;
      const extra = describe(span);
      lines.push(`${'  '.repeat(depth)}${span.name} (${ms.toFixed(0)} ms${extra ? `; ${extra}` : ''})`);
      walk(span.spanId, depth + 1);
    }
  };
  walk('', 0);
  return lines.join('\n');
}

/** The chain of names from a span up to its trace's root. */
export function ancestry(spans: ReceivedSpan[], span: ReceivedSpan): string[] {
  const byId = new Map(spans.filter((each) => each.traceId === span.traceId).map((each) => [each.spanId, each]));
  const chain: string[] = [];
  for (let at: ReceivedSpan | undefined = span; at; at = byId.get(at.parentSpanId)) chain.push(at.name);
  return chain;
}
