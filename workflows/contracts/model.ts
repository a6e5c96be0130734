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
  /**
   * Where the conversation stays the same from this request to the next, so a provider with
   * explicit cache breakpoints writes the prefix the next request reads (absent: the system
   * prompt and the last block, as before the hint; with `purpose` and no hint: no cache write).
   */
  cache?: CacheHint;
  /** For logs and for the scripted provider's reports: which run and turn this is. */
  runId: string;
  turn: number;
  /**
   * A turn that is not a step of the run: `compaction` summarises older turns, `summary` is the
   * closing summary after a bound (the last user message asks for either). It is sent with the
   * run's tools so the cached prefix still matches; a tool call it makes is ignored.
   */
  purpose?: TurnPurpose;
}

/** What a model turn was for, besides a step of the run (`routing`: a router's turn, when there is one). */
export type TurnPurpose = 'compaction' | 'summary' | 'routing';

/**
 * The cache plan of one request, in counts of leading `messages`: `stable` of them are sent
 * unchanged by the next request (so the prefix through them is worth writing), and `previous`
 * is where the previous request wrote (so this one reads it exactly, however many blocks the
 * turn added since).
 */
export interface CacheHint {
  stable: number;
  previous?: number;
}

/** A turn's tokens: `inputTokens` is uncached input for every provider; cache reads and writes are apart. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  /** Every token written to the cache, at either lifetime. */
  cacheWriteTokens?: number;
  /** The part of `cacheWriteTokens` written with the 1-hour lifetime (priced higher than 5 minutes). */
  cacheWrite1hTokens?: number;
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
  /** What the same tokens would have cost with no prompt cache (all input at the input price). */
  costWithoutCacheUsd?: number;
}
