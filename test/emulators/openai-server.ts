import { startWireServer, type Responder, type WireReply, type WireServer } from './model-wire-server';

export { dropConnection, type RecordedRequest, type Responder, type WireReply, type WireServer } from './model-wire-server';

const ERROR_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
};

function errorBody(status: number, message: string) {
  const known = ERROR_TYPES[status] ?? { type: 'server_error', code: null };
  return { error: { message, type: known.type, param: null, code: known.code } };
}

/**
 * A local OpenAI-compatible server: `POST /v1/chat/completions`, answered from a queue in the
 * API's exact JSON shape (non-streaming). Point the SDK's `baseURL` at `${url}/v1`.
 */
export function startOpenAIServer(respond?: Responder): Promise<WireServer> {
  return startWireServer({ endpoint: '/v1/chat/completions', errorBody, ...(respond ? { respond } : {}) });
}

export interface ChatCompletionOptions {
  text?: string | null;
  toolCalls?: { id: string; name: string; arguments: string }[];
  finishReason?: 'stop' | 'tool_calls' | 'length' | 'content_filter';
  model?: string;
  usage?: { prompt_tokens?: number; completion_tokens?: number; cached_tokens?: number };
  delayMs?: number;
}

let sequence = 0;

/** A `chat.completion` object as the API returns it. */
export function chatCompletion(options: ChatCompletionOptions = {}): WireReply {
  sequence += 1;
  const usage = options.usage ?? {};
  const prompt = usage.prompt_tokens ?? 12;
  const completion = usage.completion_tokens ?? 6;
  const toolCalls = options.toolCalls ?? [];
  return {
    kind: 'json',
    status: 200,
    delayMs: options.delayMs,
    headers: { 'x-request-id': `req_emulated_${sequence}` },
    body: {
      id: `chatcmpl-emulated-${sequence}`,
      object: 'chat.completion',
      created: 1_700_000_000 + sequence,
      model: options.model ?? 'gpt-4.1-2025-04-14',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: options.text === undefined ? null : options.text,
            refusal: null,
            annotations: [],
            ...(toolCalls.length > 0
              ? {
                  tool_calls: toolCalls.map((call) => ({
                    id: call.id,
                    type: 'function',
                    function: { name: call.name, arguments: call.arguments },
                  })),
                }
              : {}),
          },
          logprobs: null,
          finish_reason: options.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
        },
      ],
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
      service_tier: 'default',
      system_fingerprint: 'fp_emulated',
    },
  };
}

/** An error response; `retryAfter` (seconds) becomes the `retry-after` header. */
export function openaiError(status: number, message: string, options: { retryAfter?: number } = {}): WireReply {
  const headers: Record<string, string> = {};
  if (options.retryAfter !== undefined) headers['retry-after'] = String(options.retryAfter);
  return { kind: 'json', status, body: errorBody(status, message), headers };
}
