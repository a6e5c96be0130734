import type Anthropic from '@anthropic-ai/sdk';
import { type ChatMessage, type ModelTurnInput, type ModelTurnResult, type ToolCall } from './types';

type MessageParam = Anthropic.MessageParam;
type ContentBlock = Anthropic.ContentBlockParam;
type CacheControl = Anthropic.CacheControlEphemeral;

/**
 * Builds the Messages API body for one turn. Two cache breakpoints: the system prompt (which
 * also covers the tools, since tools precede it in the prompt) and the last message, so
 * each turn reads the previous turn's prefix from cache and writes its own. `effort` maps to
 * `output_config.effort`; extended thinking is not used because our conversation does not
 * carry thinking blocks, which the API requires back on tool-use turns.
 */
export function toAnthropicRequest(modelId: string, input: ModelTurnInput): Anthropic.MessageCreateParamsNonStreaming {
  const cacheControl: CacheControl = input.cacheTtl ? { type: 'ephemeral', ttl: input.cacheTtl } : { type: 'ephemeral' };
  const messages = toAnthropicMessages(input.messages);
  markLastBlock(messages, cacheControl);
  return {
    model: modelId,
    max_tokens: input.maxTokens,
    ...(input.system.trim() !== '' ? { system: [{ type: 'text', text: input.system, cache_control: cacheControl }] } : {}),
    messages,
    ...(input.tools.length > 0
      ? {
          tools: input.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
          })),
        }
      : {}),
    ...(input.effort ? { output_config: { effort: input.effort } } : {}),
  };
}

/**
 * Our messages in the API's shape. Tool results become `tool_result` blocks in a user message;
 * consecutive user-side messages (results, then a steer) merge into one, results first, so
 * every `tool_use` is answered in the very next message as the API requires.
 */
export function toAnthropicMessages(messages: ChatMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = toBlocks(message);
    const previous = out[out.length - 1];
    if (previous && previous.role === role && Array.isArray(previous.content)) {
      previous.content.push(...blocks);
    } else {
      out.push({ role, content: blocks });
    }
  }
  return out;
}

function toBlocks(message: ChatMessage): ContentBlock[] {
  if (message.role === 'user') return [{ type: 'text', text: message.text === '' ? '(empty message)' : message.text }];
  if (message.role === 'tool') {
    return message.results.map((result) => ({
      type: 'tool_result',
      tool_use_id: result.callId,
      content: result.content,
      ...(result.isError ? { is_error: true } : {}),
    }));
  }
  const blocks: ContentBlock[] = [];
  // The API refuses empty text blocks; an assistant turn with only tool calls has none.
  if (message.text !== '') blocks.push({ type: 'text', text: message.text });
  for (const call of message.toolCalls) {
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: isObject(call.input) ? call.input : { value: call.input } });
  }
  if (blocks.length === 0) blocks.push({ type: 'text', text: '(no reply)' });
  return blocks;
}

function markLastBlock(messages: MessageParam[], cacheControl: CacheControl): void {
  const last = messages[messages.length - 1];
  if (!last || !Array.isArray(last.content)) return;
  const block = last.content[last.content.length - 1] as ContentBlock & { cache_control?: CacheControl };
  if (block) block.cache_control = cacheControl;
}

/** The API's answer in our terms; usage keeps cache reads and writes apart from fresh input. */
export function fromAnthropicMessage(message: Anthropic.Message): ModelTurnResult {
  const text: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text') text.push(block.text);
    else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, input: block.input });
  }
  const usage = message.usage;
  return {
    text: text.join('\n'),
    toolCalls,
    stopReason: mapStopReason(message.stop_reason),
    usage: {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      ...(usage.cache_read_input_tokens != null ? { cacheReadTokens: usage.cache_read_input_tokens } : {}),
      ...(usage.cache_creation_input_tokens != null ? { cacheWriteTokens: usage.cache_creation_input_tokens } : {}),
    },
    model: message.model,
  };
}

function mapStopReason(reason: Anthropic.Message['stop_reason']): ModelTurnResult['stopReason'] {
  if (reason === 'end_turn' || reason === 'stop_sequence') return 'end_turn';
  if (reason === 'tool_use') return 'tool_use';
  if (reason === 'max_tokens') return 'max_tokens';
  return 'other';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
