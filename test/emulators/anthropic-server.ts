import { startWireServer, type Responder, type WireReply, type WireServer } from './model-wire-server';

export { dropConnection, type RecordedRequest, type Responder, type WireReply, type WireServer } from './model-wire-server';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function errorBody(status: number, message: string) {
  return { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message } };
}

/**
 * A local Anthropic Messages API: `POST /v1/messages`, answered from a queue in the API's
 * exact JSON shape (non-streaming). Point the SDK's `baseURL` at `url`.
 */
export function startAnthropicServer(respond?: Responder): Promise<WireServer> {
  return startWireServer({ endpoint: '/v1/messages', errorBody, ...(respond ? { respond } : {}) });
}

export interface AnthropicMessageOptions {
  text?: string;
  toolUses?: { id: string; name: string; input: unknown }[];
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence';
  model?: string;
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
    /** The writes by lifetime, as the API reports them when asked for TTLs. */
    cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  };
  delayMs?: number;
}

let sequence = 0;

/** A `message` object as the Messages API returns it. */
export function anthropicMessage(options: AnthropicMessageOptions = {}): WireReply {
  sequence += 1;
  const content: unknown[] = [];
  if (options.text !== undefined) content.push({ type: 'text', text: options.text });
  for (const use of options.toolUses ?? []) content.push({ type: 'tool_use', id: use.id, name: use.name, input: use.input });
  const usage = options.usage ?? {};
  return {
    kind: 'json',
    status: 200,
    delayMs: options.delayMs,
    headers: { 'request-id': `req_emulated_${sequence}` },
    body: {
      id: `msg_emulated_${sequence}`,
      type: 'message',
      role: 'assistant',
      model: options.model ?? 'claude-sonnet-4-6-20250929',
      content,
      stop_reason: options.stopReason ?? (options.toolUses?.length ? 'tool_use' : 'end_turn'),
      stop_sequence: null,
      usage: {
        input_tokens: usage.input_tokens ?? 10,
        output_tokens: usage.output_tokens ?? 5,
        cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
        cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
        cache_creation: usage.cache_creation ?? null,
        server_tool_use: null,
        service_tier: 'standard',
      },
    },
  };
}

/** An error response; `retryAfter` (seconds) becomes the `retry-after` header. */
export function anthropicError(status: number, message: string, options: { retryAfter?: number } = {}): WireReply {
  const headers: Record<string, string> = { 'request-id': `req_emulated_error_${status}` };
  if (options.retryAfter !== undefined) headers['retry-after'] = String(options.retryAfter);
  return { kind: 'json', status, body: errorBody(status, message), headers };
}

/** The API key a request carried: `x-api-key`, or `Authorization: Bearer` as newer SDKs send it. */
export function anthropicKeyOf(request: { headers: Record<string, string | string[] | undefined> }): string | undefined {
  const key = request.headers['x-api-key'];
  if (typeof key === 'string') return key;
  const authorization = request.headers.authorization;
  return typeof authorization === 'string' ? authorization.replace(/^Bearer\s+/i, '') : undefined;
}
