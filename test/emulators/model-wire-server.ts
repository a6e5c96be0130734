import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';

/** One request as the emulator saw it, for assertions. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (or the raw text when it was not JSON); `any` so tests can reach into it. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** When it arrived (ms since the epoch): a prompt cache's entries expire by it. */
  receivedAt: number;
}

/** What the emulator answers next: a JSON response, or a fault. */
export type WireReply =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string>; delayMs?: number }
  /** Closes the socket without an answer, as a crashed proxy or a reset connection would. */
  | { kind: 'drop' };

export interface WireServer {
  /** Base URL, e.g. `http://127.0.0.1:41234`; append `/v1` for the OpenAI SDK. */
  url: string;
  requests: RecordedRequest[];
  /** Queue answers, played in order, one per request to the served endpoint. */
  enqueue(...replies: WireReply[]): void;
  close(): Promise<void>;
}

export interface WireServerOptions {
  /** The endpoint that answers from the queue, e.g. `/v1/messages`. */
  endpoint: string;
  /** The API's error body for a status and message (each API has its own shape). */
  errorBody(status: number, message: string): unknown;
  /** Answers a request the queue has no reply for (a bench's model that answers from the request); none: the empty-queue error. */
  respond?: Responder;
}

/** Computes the answer to one request from what it carries (the conversation so far). */
export type Responder = (request: RecordedRequest) => WireReply | undefined;

export function dropConnection(): WireReply {
  return { kind: 'drop' };
}

/**
 * A loopback HTTP server that records every request and answers the one endpoint from a
 * queue. Other paths answer 404 and an empty queue answers 500, both in the API's own error
 * shape, so a test that asks for more than it queued fails loudly. No streaming: a request
 * with `stream: true` is refused with 400.
 */
export async function startWireServer(options: WireServerOptions): Promise<WireServer> {
  const requests: RecordedRequest[] = [];
  const queue: WireReply[] = [];
  const sendJson = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        // Kept as text: the assertion will show what arrived.
      }
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      requests.push({ method: request.method ?? 'GET', path, headers: request.headers, body, receivedAt: Date.now() });
      if (request.method !== 'POST' || path !== options.endpoint) {
        sendJson(response, 404, options.errorBody(404, `No route ${request.method} ${path} on this emulator`));
        return;
      }
      if ((body as { stream?: unknown } | undefined)?.stream === true) {
        sendJson(response, 400, options.errorBody(400, 'This emulator does not stream; send stream: false'));
        return;
      }
      const reply = queue.shift() ?? options.respond?.(requests[requests.length - 1]);
      if (!reply) {
        sendJson(response, 500, options.errorBody(500, 'Emulator queue is empty: the test enqueued fewer replies than requests'));
        return;
      }
      if (reply.kind === 'drop') {
        request.socket.destroy();
        return;
      }
      const send = () => sendJson(response, reply.status, reply.body, reply.headers);
      if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
