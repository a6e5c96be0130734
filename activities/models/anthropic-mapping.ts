import type Anthropic from '@anthropic-ai/sdk';
import { planBreakpoints } from './cache-breakpoints';
import type { ChatMessage, ModelTurnInput, ModelTurnResult, ToolCall } from '../../workflows/contracts/model';

type MessageParam = Anthropic.MessageParam;
type ContentBlock = Anthropic.ContentBlockParam;
type CacheControl = Anthropic.CacheControlEphemeral;

/**
 * Builds the Messages API body for one turn. Cache breakpoints follow the workflow's hint
 * (cache-breakpoints.ts): the end of tools + system, where the previous request wrote, and the
 * longest prefix the next request keeps unchanged, all with the TTL the run chose. `effort` maps
 * to `output_config.effort`; extended thinking is not used because our conversation does not
 * carry thinking blocks, which the API requires back on tool-use turns.
 */
export function toAnthropicRequest(modelId: string, input: ModelTurnInput): Anthropic.MessageCreateParamsNonStreaming {
  const cacheControl: CacheControl = input.cacheTtl ? { type: 'ephemeral', ttl: input.cacheTtl } : { type: 'ephemeral' };
  const { messages, ends } = mapMessages(input.messages);
  const plan = planBreakpoints(input.cache, input.messages.length, input.purpose);
  for (const count of plan.messages) mark(messages[ends[count - 1].message], ends[count - 1].block, cacheControl);
  const system = input.system.trim() !== '' ? input.system : undefined;
  const tools: Anthropic.Tool[] = input.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
  }));
  // Tools come before the system prompt in the prefix: with no system prompt, the last tool ends it.
  if (plan.prefix && !system && tools.length > 0) tools[tools.length - 1].cache_control = cacheControl;
  return {
    model: modelId,
    max_tokens: input.maxTokens,
    ...(system ? { system: [{ type: 'text', text: system, ...(plan.prefix ? { cache_control: cacheControl } : {}) }] } : {}),
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    ...(input.effort ? { output_config: { effort: input.effort } } : {}),
  };
}

/**
 * Our messages in the API's shape. Tool results become `tool_result` blocks in a user message;
 * consecutive user-side messages (results, then a steer) merge into one, results first, so
 * every `tool_use` is answered in the very next message as the API requires.
 */
export function toAnthropicMessages(messages: ChatMessage[]): MessageParam[] {
  return mapMessages(messages).messages;
}

/** The API's messages, and where each of ours ends in them (its last block), for the breakpoints. */
function mapMessages(messages: ChatMessage[]): { messages: MessageParam[]; ends: { message: number; block: number }[] } {
  const out: MessageParam[] = [];
  const ends: { message: number; block: number }[] = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = toBlocks(message);
    const previous = out[out.length - 1];
    if (previous && previous.role === role && Array.isArray(previous.content)) {
      previous.content.push(...blocks);
    } else {
      out.push({ role, content: blocks });
    }
    const last = out[out.length - 1];
    ends.push({ message: out.length - 1, block: (last.content as ContentBlock[]).length - 1 });
  }
  return { messages: out, ends };
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

function mark(message: MessageParam | undefined, block: number, cacheControl: CacheControl): void {
  if (!message || !Array.isArray(message.content)) return;
  const target = message.content[block] as (ContentBlock & { cache_control?: CacheControl }) | undefined;
  if (target) target.cache_control = cacheControl;
}

/**
 * The API's answer in our terms; usage keeps cache reads and writes apart from fresh input, and
 * the 1-hour writes apart (from `cache_creation`, else by the TTL the request was sent with).
 */
export function fromAnthropicMessage(message: Anthropic.Message, sentTtl?: '5m' | '1h'): ModelTurnResult {
  const text: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text') text.push(block.text);
    else if (block.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, input: block.input });
  }
  const usage = message.usage;
  const written = usage.cache_creation_input_tokens ?? 0;
  const written1h = usage.cache_creation ? usage.cache_creation.ephemeral_1h_input_tokens : sentTtl === '1h' ? written : 0;
  return {
    text: text.join('\n'),
    toolCalls,
    stopReason: mapStopReason(message.stop_reason),
    usage: {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      ...(usage.cache_read_input_tokens != null ? { cacheReadTokens: usage.cache_read_input_tokens } : {}),
      ...(usage.cache_creation_input_tokens != null ? { cacheWriteTokens: written } : {}),
      ...(written1h > 0 ? { cacheWrite1hTokens: written1h } : {}),
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
