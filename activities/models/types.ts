/**
 * The provider-neutral contract of the `modelTurn` activity. Workflows import these types
 * only; each provider (Anthropic, OpenAI-compatible, scripted) maps them to its wire format.
 */

export interface ToolCall {
  /** Provider-assigned id, echoed back in the matching result. */
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResult {
  callId: string;
  name: string;
  /** What the model reads: output, or an error described in words. */
  content: string;
  isError?: boolean;
}

export type ChatMessage =
  | {
      role: 'user';
      text: string;
      /** Set on the summary a compaction turn wrote: how many assistant turns it stands for. */
      compacted?: { assistantTurns: number };
    }
  | { role: 'assistant'; text: string; toolCalls: ToolCall[] }
  /** The results of the previous assistant message's tool calls, in one message. */
  | { role: 'tool'; results: ToolResult[] };

export interface ModelTool {
  name: string;
  description: string;
  /** JSON Schema of the input (from the tool's zod schema). */
  inputSchema: Record<string, unknown>;
}

export interface ModelTurnInput {
  /** `<provider>:<model>`: `anthropic:claude-sonnet-4-6`, `openai:gpt-4.1`, `scripted:examples/hello.yaml`. */
  model: string;
  system: string;
  messages: ChatMessage[];
  tools: ModelTool[];
  /** The per-call output token cap. */
  maxTokens: number;
  effort?: 'low' | 'medium' | 'high';
  /** Prompt-cache lifetime (Anthropic); ignored by providers without caching. */
  cacheTtl?: '5m' | '1h';
  /** For logs and for the scripted provider's reports: which run and turn this is. */
  runId: string;
  turn: number;
  /** `compaction`: a turn that summarises older turns (the last user message asks for it); no tools. */
  purpose?: 'compaction';
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

export interface ModelTurnResult {
  text: string;
  toolCalls: ToolCall[];
  stopReason: 'end_turn' | 'tool_use' | 'max_tokens' | 'other';
  usage: TokenUsage;
  /** The model that answered, as the provider reports it. */
  model: string;
  /** The model's context window in tokens, when the provider knows it. */
  contextWindow?: number;
  /** What the turn cost in USD by the configured price table; absent when the model has no price. */
  costUsd?: number;
}
