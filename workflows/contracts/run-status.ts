/**
 * A run's live status, the `status` query's answer (run.ts defines the query), and the parts of
 * it that its record shares: tokens, cost, the money bound, the outcome, setup and checklist.
 * Apart from run.ts because the status card's input (status.ts) carries it, and the card's
 * unconfirmed writes (resend.ts) are part of the run's record.
 */

/** Tokens by kind, summed over a run's turns (cache reads and writes apart from fresh input). */
export interface TokenTotals {
  input: number;
  output: number;
  cacheRead: number;
  /** Cache writes at either lifetime. */
  cacheWrite: number;
  /** The part of `cacheWrite` written with the 1-hour lifetime (absent: none). */
  cacheWrite1h?: number;
}

/** What a run spent: priced turns and searches in USD; models without a price are named. */
export interface RunCost {
  usd: number;
  /** Paid searches among the tool calls, and what they cost (included in `usd`). */
  searches: number;
  searchUsd: number;
  /** Models that answered turns but have no entry in `prices.models` (their turns add nothing to `usd`). */
  unpriced: string[];
  /** What `usd` would have been with no prompt cache (every input token at the input price); absent before it was kept. */
  withoutCacheUsd?: number;
  /** Calls of MCP servers' tools (absent: none); per server in the record's `mcp`. */
  mcpCalls?: number;
}

/** A money bound on one run (like its time budget): the smallest cap that applies, and what set it. */
export interface SpendCap {
  usd: number;
  /** In words: `the $2.00 per-run cap of agent explore`, `what is left of person U1's $5.00 daily cap`. */
  boundedBy: string;
}

/** `spend`: a money cap (per run, or what was left of a daily cap when it started) ended it. */
export const RUN_OUTCOMES = ['completed', 'stopped', 'budget', 'turns', 'tokens', 'spend', 'failed'] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/** One step of the checklist a run keeps with `update_status`. */
export interface StatusStep {
  title: string;
  state: 'pending' | 'running' | 'done' | 'failed' | 'skipped';
}

/** How the repository's setup went before the first turn. */
export interface SetupOutcome {
  /**
   * `cached`: done before in this workspace with the same commands and lockfiles, so not run again;
   * `restored`: not run, its results from an earlier run with the same key copied in from the worker host's cache.
   */
  state: 'running' | 'ran' | 'cached' | 'restored' | 'failed' | 'timed_out';
  commands: number;
  exitCode?: number;
  durationMs?: number;
  /** The end of its output (bounded). */
  output?: string;
}

export type RunPhase = 'starting' | 'thinking' | 'tools' | 'waiting' | 'summarising' | 'finished';

/** The `status` query's answer. */
export interface RunStatus {
  runId: string;
  agent: string;
  model: string;
  phase: RunPhase;
  turns: number;
  turnGuard: number;
  tokens: TokenTotals;
  cost: RunCost;
  elapsedMs: number;
  budget: { minutes: number; boundedBy: string; description: string };
  lastTool?: string;
  statusText?: string;
  outcome?: RunOutcome;
  /** For a bound: which one, in words (the card says it). */
  endedBy?: string;
  /** Input tokens served from the prompt cache, over all input tokens (0 to 1). */
  cacheShare?: number;
  /** The run's money bound, when a spend cap applies. */
  spendCap?: SpendCap;
  /** The repository instruction files the run loaded (the card names them). */
  instructions?: string[];
  /** The repository's setup before the first turn, with the end of its output. */
  setup?: SetupOutcome;
  /** Where the run's answer goes when it is not the conversation's next message: its unit's report, or the run that delegated to it. */
  answersTo?: 'unit' | 'parent' | 'review';
  /** Who stopped the run and why, when it was stopped (a card says who, as the surface names people). */
  stop?: { by?: string; reason?: string };
  /** How the router picked the agent, for the card (absent: named, sticky, or a child). */
  routing?: { agent: string; reason: string; note?: string };
  /** The team board the run read into its system prompt, and how many of its kept entries (the card names it). */
  board?: { id: string; entries: number };
  /** The checklist `update_status` last set, as the cards and the session page show it (absent: none). */
  steps?: StatusStep[];
}
