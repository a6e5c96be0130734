import type { ChatMessage, ModelTurnResult, ToolResult } from '../../activities/models/types';
import {
  canCompact,
  compactMessages,
  COMPACT_AT_SHARE,
  COMPACTION_INSTRUCTION,
  cutOlderResults,
  DEFAULT_CONTEXT_WINDOW,
  estimateTokens,
} from './context-window';
import { describeBudget } from '../../agents/profile';
import type {
  ChildRecord,
  DirectWorkState,
  RunCarry,
  RunCost,
  TokenTotals,
  TurnUsage,
  RunInput,
  RunOutcome,
  RunPhase,
  RunRecord,
  RunStatus,
  SteerInput,
  ToolCallRecord,
  UncertainWrite,
} from '../contracts';

/** Dollars to a millionth (sums of floats would show 0.30000000000000004). */
function roundUsd(value: number): number {
  return Math.round(value * 1_000_000) / 1_000_000;
}

/**
 * The run's bookkeeping as a plain class: the conversation, counters and record. The
 * workflow holds one and feeds it events; unit tests drive it directly.
 */
export class RunState {
  readonly startedAt: number;
  readonly deadline: number;
  messages: ChatMessage[];
  turns: number;
  tokens: TokenTotals;
  usage: TurnUsage[];
  cost: RunCost;
  toolCalls: ToolCallRecord[];
  children: ChildRecord[];
  pendingSteers: SteerInput[];
  jobWaits: { polls: number; waitedMs: number };
  taskCounter: number;
  statusText?: string;
  submissions: Record<string, unknown>;
  phase: RunPhase = 'starting';
  lastTool?: string;
  outcome?: RunOutcome;
  endedBy?: string;
  finalText = '';
  /** The closing summary, when a bound ended the run and the last turn wrote one. */
  summary?: string;
  /** Status card updates that could not be delivered after their retries. */
  cardFailures = 0;
  /** How many leading messages are the task (the saved context and the request): never compacted. */
  taskLength: number;
  /** The model's context window in tokens (as its provider reports it). */
  contextWindow: number;
  compactions: number;
  /** A direct review or coding run's checkout and delivery (run/direct-work.ts). */
  direct?: DirectWorkState;
  /** This run's at-most-once writes (its tools', its card's last update) that ended `unconfirmed`. */
  uncertain: UncertainWrite[];
  /** The status card's key generation and the keys of earlier posts that were never confirmed (run/status-card.ts). */
  card: { generation: number; earlier: string[] };

  constructor(
    readonly input: RunInput,
    now: number,
  ) {
    const carry = input.carry;
    this.startedAt = carry?.startedAt ?? now;
    this.deadline = carry?.deadline ?? now + input.profile.budget.minutes * 60_000;
    this.messages = carry?.messages ?? [...input.context, { role: 'user', text: input.request }];
    this.turns = carry?.turns ?? 0;
    this.tokens = { cacheRead: 0, cacheWrite: 0, ...(carry?.tokens ?? { input: 0, output: 0 }) };
    this.usage = carry?.usage ?? [];
    this.cost = carry?.cost ?? { usd: 0, searches: 0, searchUsd: 0, unpriced: [] };
    this.toolCalls = carry?.toolCalls ?? [];
    this.children = carry?.children ?? [];
    this.pendingSteers = carry?.pendingSteers ?? [];
    this.jobWaits = carry?.jobWaits ?? { polls: 0, waitedMs: 0 };
    this.taskCounter = carry?.taskCounter ?? 0;
    this.statusText = carry?.statusText;
    this.submissions = carry?.submissions ?? {};
    this.taskLength = carry?.taskLength ?? input.context.length + 1;
    this.contextWindow = carry?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
    this.compactions = carry?.compactions ?? 0;
    this.direct = carry?.direct;
    this.uncertain = carry?.uncertain ?? [];
    this.card = carry?.card ?? { generation: 0, earlier: [] };
  }

  get finished(): boolean {
    return this.outcome !== undefined;
  }

  /** Steers received since the last turn join the conversation as the person's words. */
  drainSteers(): number {
    const steers = this.pendingSteers.splice(0);
    for (const steer of steers) {
      this.messages.push({ role: 'user', text: steer.by ? `(steer from ${steer.by}) ${steer.text}` : `(steer) ${steer.text}` });
    }
    return steers.length;
  }

  recordTurn(result: ModelTurnResult): void {
    this.turns += 1;
    const turn: TurnUsage = {
      turn: this.turns,
      model: result.model,
      input: result.usage.inputTokens,
      output: result.usage.outputTokens,
      cacheRead: result.usage.cacheReadTokens ?? 0,
      cacheWrite: result.usage.cacheWriteTokens ?? 0,
      ...(result.costUsd !== undefined ? { costUsd: result.costUsd } : {}),
    };
    this.usage.push(turn);
    this.tokens.input += turn.input;
    this.tokens.output += turn.output;
    this.tokens.cacheRead += turn.cacheRead;
    this.tokens.cacheWrite += turn.cacheWrite;
    if (turn.costUsd !== undefined) this.cost.usd = roundUsd(this.cost.usd + turn.costUsd);
    else if (!this.cost.unpriced.includes(turn.model)) this.cost.unpriced.push(turn.model);
    this.messages.push({ role: 'assistant', text: result.text, toolCalls: result.toolCalls });
    if (result.text.trim()) this.finalText = result.text;
    if (result.contextWindow) this.contextWindow = result.contextWindow;
  }

  /** Near the window's limit (estimated), with older turns to summarise: time for a compaction turn. */
  needsCompaction(): boolean {
    return (
      estimateTokens(this.input.system, this.messages) > this.contextWindow * COMPACT_AT_SHARE && canCompact(this.messages, this.taskLength)
    );
  }

  /** What the compaction turn reads: the conversation and the request to summarise it. */
  compactionMessages(): ChatMessage[] {
    return [...this.messages, { role: 'user', text: COMPACTION_INSTRUCTION }];
  }

  /** Replaces the older turns by the summary; the task, steers and the latest turns stay. */
  applyCompaction(result: ModelTurnResult): void {
    this.tokens.input += result.usage.inputTokens;
    this.tokens.output += result.usage.outputTokens;
    this.messages = compactMessages(this.messages, this.taskLength, result.text);
    this.compactions += 1;
  }

  /** A search the provider charges for (`prices.search`). */
  recordSearchCost(usd: number): void {
    this.cost.searches += 1;
    this.cost.searchUsd = roundUsd(this.cost.searchUsd + usd);
    this.cost.usd = roundUsd(this.cost.usd + usd);
  }

  recordToolResults(results: ToolResult[]): void {
    for (const result of results) {
      this.toolCalls.push({
        turn: this.turns,
        name: result.name,
        ok: !result.isError,
        ...(result.isError ? { error: result.content.slice(0, 300) } : {}),
      });
      this.lastTool = result.name;
    }
    this.messages.push({ role: 'tool', results });
    // Only the latest results are shown whole; older ones keep their head and tail (the whole text is in the workspace).
    cutOlderResults(this.messages);
  }

  /** Adds a note in the person's voice (a background child's result, a bound reached). */
  note(text: string): void {
    this.messages.push({ role: 'user', text });
  }

  finish(outcome: RunOutcome, endedBy?: string): void {
    if (this.outcome) return;
    this.outcome = outcome;
    this.endedBy = endedBy;
    this.phase = 'finished';
  }

  remainingMs(now: number): number {
    return Math.max(0, this.deadline - now);
  }

  status(runId: string, now: number): RunStatus {
    const { profile } = this.input;
    return {
      runId,
      agent: profile.agent,
      model: profile.model.value,
      phase: this.phase,
      turns: this.turns,
      turnGuard: profile.turnGuard,
      tokens: { ...this.tokens },
      cost: { ...this.cost, unpriced: [...this.cost.unpriced] },
      elapsedMs: now - this.startedAt,
      budget: { minutes: profile.budget.minutes, boundedBy: profile.budget.boundedBy, description: describeBudget(profile.budget) },
      ...(this.lastTool ? { lastTool: this.lastTool } : {}),
      ...(this.statusText ? { statusText: this.statusText } : {}),
      ...(this.outcome ? { outcome: this.outcome } : {}),
    };
  }

  carry(): RunCarry {
    return {
      startedAt: this.startedAt,
      deadline: this.deadline,
      messages: this.messages,
      turns: this.turns,
      tokens: this.tokens,
      usage: this.usage,
      cost: this.cost,
      toolCalls: this.toolCalls,
      children: this.children,
      pendingSteers: this.pendingSteers,
      jobWaits: this.jobWaits,
      taskCounter: this.taskCounter,
      statusText: this.statusText,
      submissions: this.submissions,
      taskLength: this.taskLength,
      contextWindow: this.contextWindow,
      compactions: this.compactions,
      ...(this.direct ? { direct: this.direct } : {}),
      ...(this.uncertain.length ? { uncertain: this.uncertain } : {}),
      ...(this.card.generation > 0 ? { card: this.card } : {}),
    };
  }

  record(runId: string, now: number): RunRecord {
    const { input } = this;
    return {
      runId,
      threadId: input.threadId,
      profile: input.profile,
      request: input.request,
      requester: input.requester,
      outcome: this.outcome ?? 'failed',
      ...(this.endedBy ? { endedBy: this.endedBy } : {}),
      turns: this.turns,
      tokens: this.tokens,
      usage: this.usage,
      cost: this.cost,
      toolCalls: this.toolCalls,
      children: this.children,
      jobWaits: this.jobWaits,
      finalText: this.finalText,
      ...(this.summary ? { summary: this.summary } : {}),
      submissions: this.submissions,
      startedAt: this.startedAt,
      endedAt: now,
      messageCount: this.messages.length,
      ...(this.compactions > 0 ? { compactions: this.compactions } : {}),
      cardFailures: this.cardFailures,
      ...(this.uncertain.length ? { unconfirmed: this.uncertain } : {}),
    };
  }
}
