import { createHash } from 'node:crypto';
import type OpenAI from 'openai';
import type { ChatMessage, ModelTurnInput, ModelTurnResult, ToolCall } from '../../workflows/contracts/model';

type ChatParam = OpenAI.Chat.ChatCompletionMessageParam;

export interface OpenAIRequestOptions {
  /** `max_completion_tokens` (OpenAI's current name) or `max_tokens` (older servers and routers). */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /** Send `reasoning_effort` from the input's effort; off by default because non-reasoning models reject it. */
  reasoningEffort: boolean;
  /** Send `prompt_cache_key` (one per run) so the run's requests reach the same prefix cache; off for servers that refuse it. */
  promptCacheKey?: boolean;
}

/**
 * The run's cache key: a digest of the run id (stable across its turns and retries, short
 * whatever the id's length, and naming no thread or repository to the provider).
 */
export function promptCacheKeyFor(runId: string): string {
  return `switchboard-${createHash('sha256').update(runId).digest('hex').slice(0, 32)}`;
}

/**
 * Builds the chat-completions body: the system prompt first, tools as functions. Automatic
 * prefix caching needs nothing marked: the prefix stays the same from turn to turn because the
 * run sends the same tools and parameters on every turn (compaction and closing summaries
 * included) and changes only the newest result of the conversation (context-window.ts).
 */
export function toOpenAIRequest(
  modelId: string,
  input: ModelTurnInput,
  options: OpenAIRequestOptions,
): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  const messages: ChatParam[] = [];
  if (input.system.trim() !== '') messages.push({ role: 'system', content: input.system });
  messages.push(...toOpenAIMessages(input.messages));
  return {
    model: modelId,
    messages,
    [options.maxTokensField]: input.maxTokens,
    ...(input.tools.length > 0
      ? {
          tools: input.tools.map((tool) => ({
            type: 'function' as const,
            function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
          })),
        }
      : {}),
    ...(options.reasoningEffort && input.effort ? { reasoning_effort: input.effort } : {}),
    ...(options.promptCacheKey && input.runId ? { prompt_cache_key: promptCacheKeyFor(input.runId) } : {}),
  };
}

/** Each tool result becomes its own `tool` message; the API has no error flag, so errors say so in words. */
export function toOpenAIMessages(messages: ChatMessage[]): ChatParam[] {
  const out: ChatParam[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      out.push({ role: 'user', content: message.text });
    } else if (message.role === 'assistant') {
      out.push({
        role: 'assistant',
        content: message.text === '' ? null : message.text,
        ...(message.toolCalls.length > 0
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) },
              })),
            }
          : {}),
      });
    } else {
      for (const result of message.results) {
        out.push({ role: 'tool', tool_call_id: result.callId, content: result.isError ? `Error: ${result.content}` : result.content });
      }
    }
  }
  return out;
}

/**
 * The first choice in our terms. Arguments that are not valid JSON are passed on as their raw
 * text, so the tool's own validation answers the model instead of the activity failing.
 * `prompt_tokens` includes cached tokens in this API; we report them apart, so `inputTokens`
 * means uncached input for every provider.
 */
export function fromOpenAICompletion(completion: OpenAI.Chat.ChatCompletion): ModelTurnResult | undefined {
  const choice = completion.choices[0];
  if (!choice) return undefined;
  const toolCalls: ToolCall[] = [];
  for (const call of choice.message.tool_calls ?? []) {
    if (call.type !== 'function') continue;
    toolCalls.push({ id: call.id, name: call.function.name, input: parseArguments(call.function.arguments) });
  }
  const usage = completion.usage;
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    text: choice.message.content ?? '',
    toolCalls,
    stopReason: mapFinishReason(choice.finish_reason),
    usage: {
      inputTokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cached),
      outputTokens: usage?.completion_tokens ?? 0,
      ...(cached > 0 ? { cacheReadTokens: cached } : {}),
    },
    model: completion.model,
  };
}

function parseArguments(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function mapFinishReason(reason: OpenAI.Chat.ChatCompletion.Choice['finish_reason']): ModelTurnResult['stopReason'] {
  if (reason === 'stop') return 'end_turn';
  if (reason === 'tool_calls' || reason === 'function_call') return 'tool_use';
  if (reason === 'length') return 'max_tokens';
  return 'other';
}
