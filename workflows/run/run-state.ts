import type { ChatMessage, ModelTurnResult, ToolResult, TurnPurpose } from '../contracts/model';
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
  McpRunTools,
  RunCarry,
  RunCost,
  TokenTotals,
  TurnUsage,
  RunInput,
  RunOutcome,
  RunPhase,
  RunBoard,
  RunRecord,
  RunStatus,
  StopInput,
  RepoContext,
  StatusStep,
  SteerInput,
  ToolCallRecord,
  UncertainWrite,
} from '../contracts';

/** One model call's usage entry (a turn, a compaction, a summary, a router's turn). */
export function turnUsage(result: ModelTurnResult, turn: number, purpose?: TurnPurpose): TurnUsage {
  return {
    turn,
    model: result.model,
    input: result.usage.inputTokens,
    output: result.usage.outputTokens,
    cacheRead: result.usage.cacheReadTokens ?? 0,
    cacheWrite: result.usage.cacheWriteTokens ?? 0,
    ...(result.usage.cacheWrite1hTokens ? { cacheWrite1h: result.usage.cacheWrite1hTokens } : {}),
    ...(result.costUsd !== undefined ? { costUsd: result.costUsd } : {}),
    ...(result.costWithoutCacheUsd !== undefined ? { costWithoutCacheUsd: result.costWithoutCacheUsd } : {}),
    ...(purpose ? { purpose } : {}),
  };
}

/** What the card shows of how the run was routed (its usage is in the run's usage). */
function routingView(routing: NonNullable<RunInput['routing']>): NonNullable<RunStatus['routing']> {
  return { agent: routing.agent, reason: routing.reason, ...(routing.note ? { note: routing.note } : {}) };
}

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
  /** Who stopped the run, and why (the status shows it). */
  stop?: RunStatus['stop'];
  /** A direct review or coding run's checkout and delivery (run/direct-work.ts). */
  direct?: DirectWorkState;
  /** Where the last request wrote the prompt cache (leading messages); the next request reads there. */
  cacheWritten?: number;
  /** Workflow time the last model turn answered (the tool phase since then predicts the next wait). */
  lastTurnEndedAt?: number;
  /** This run's at-most-once writes (its tools', its card's last update) that ended `unconfirmed`. */
  uncertain: UncertainWrite[];
  /** The status card's key generation and the keys of earlier posts that were never confirmed (run/status-card.ts). */
  card: { generation: number; earlier: string[] };
  /** What the run brought from its repository before its first turn (run/repo-context.ts). */
  repoContext?: RepoContext;
  /** The MCP tools discovered at the start (run/mcp-tools.ts); absent when none is attached. */
  mcp?: McpRunTools;
  /** The team board read before the first turn (run/board-read.ts); absent when none. */
  board?: RunBoard;
  /** The checklist `update_status` last set (the cards and the session page show it). */
  steps?: StatusStep[];
  /** How often the run was told it had not answered its findings before finishing. */
  reminded: number;

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
    this.cacheWritten = carry?.cacheWritten;
    this.uncertain = carry?.uncertain ?? [];
    this.card = carry?.card ?? { generation: 0, earlier: [] };
    this.repoContext = carry?.repoContext;
    this.mcp = carry?.mcp;
    this.board = carry?.board;
    this.steps = carry?.steps;
    this.reminded = carry?.reminded ?? 0;
    // The router's model turn that picked this agent is this run's to count (once: a carry has it already).
    if (!carry && input.routing?.usage) this.countUsage({ ...input.routing.usage, turn: 0, purpose: 'routing' });
  }

  /**
   * The system prompt every request carries: the input's, then the repository's instructions when
   * the run loaded any, then the team board's kept entries (as data), then the block about its MCP
   * tools once they are discovered. Decided before the first turn and carried, so it is the same
   * bytes every turn (the prompt cache depends on it).
   */
  get system(): string {
    const blocks = [this.repoContext?.instructions?.block, this.board?.block, this.mcp?.block].filter((block): block is string =>
      Boolean(block),
    );
    return [this.input.system, ...blocks].join('\n\n');
  }

  /** Counts one MCP call in the server's usage and the run's cost record. */
  countMcpCall(server: string, ok: boolean, chars: number): void {
    if (!this.mcp) return;
    const usage = (this.mcp.usage[server] ??= { calls: 0, errors: 0, chars: 0 });
    usage.calls += 1;
    if (!ok) usage.errors += 1;
    usage.chars += chars;
    this.cost.mcpCalls = (this.cost.mcpCalls ?? 0) + 1;
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

  /**
   * A turn of the run: its usage, and its answer joins the conversation. A closing summary's tool
   * calls are dropped (it is sent with the run's tools only so the cached prefix matches).
   */
  recordTurn(result: ModelTurnResult, purpose?: TurnPurpose): void {
    this.turns += 1;
    this.recordUsage(result, this.turns, purpose);
    this.messages.push({ role: 'assistant', text: result.text, toolCalls: purpose ? [] : result.toolCalls });
    if (result.text.trim()) this.finalText = result.text;
    if (result.contextWindow) this.contextWindow = result.contextWindow;
  }

  /** Counts a model call's tokens and cost (a turn, a compaction or a closing summary alike). */
  recordUsage(result: ModelTurnResult, turn: number, purpose?: TurnPurpose): void {
    this.countUsage(turnUsage(result, turn, purpose));
  }

  /** Adds one model call's usage entry to the totals and the cost. */
  countUsage(entry: TurnUsage): void {
    this.usage.push(entry);
    this.tokens.input += entry.input;
    this.tokens.output += entry.output;
    this.tokens.cacheRead += entry.cacheRead;
    this.tokens.cacheWrite += entry.cacheWrite;
    if (entry.cacheWrite1h) this.tokens.cacheWrite1h = (this.tokens.cacheWrite1h ?? 0) + entry.cacheWrite1h;
    if (entry.costUsd !== undefined) {
      this.cost.usd = roundUsd(this.cost.usd + entry.costUsd);
      // Runs recorded before this was kept start counting here; their share is computed from tokens alone.
      const without = entry.costWithoutCacheUsd ?? entry.costUsd;
      this.cost.withoutCacheUsd = roundUsd((this.cost.withoutCacheUsd ?? this.cost.usd - entry.costUsd) + without);
    } else if (!this.cost.unpriced.includes(entry.model)) this.cost.unpriced.push(entry.model);
  }

  /** Input tokens served from the prompt cache, over all input tokens (fresh, read and written). */
  cacheShare(): number {
    const all = this.tokens.input + this.tokens.cacheRead + this.tokens.cacheWrite;
    return all > 0 ? Math.round((this.tokens.cacheRead / all) * 1_000) / 1_000 : 0;
  }

  /** Past the run's money bound (the spend cap it started with). */
  pastSpendCap(): boolean {
    const cap = this.input.spendCap;
    return cap !== undefined && this.cost.usd >= cap.usd;
  }

  /** Near the window's limit (estimated), with older turns to summarise: time for a compaction turn. */
  needsCompaction(): boolean {
    return estimateTokens(this.system, this.messages) > this.contextWindow * COMPACT_AT_SHARE && canCompact(this.messages, this.taskLength);
  }

  /** What the compaction turn reads: the conversation and the request to summarise it. */
  compactionMessages(): ChatMessage[] {
    return [...this.messages, { role: 'user', text: COMPACTION_INSTRUCTION }];
  }

  /**
   * Replaces the older turns by the summary; the task, steers and the latest turns stay.
   * `counted`: the turn's usage and cost count like any turn's (runs recorded before counted
   * its fresh input and output only).
   */
  applyCompaction(result: ModelTurnResult, counted = false): void {
    if (counted) {
      this.recordUsage(result, this.turns + 1, 'compaction');
    } else {
      this.tokens.input += result.usage.inputTokens;
      this.tokens.output += result.usage.outputTokens;
    }
    this.messages = compactMessages(this.messages, this.taskLength, result.text);
    this.compactions += 1;
  }

  /** A search the provider charges for (`prices.search`). */
  recordSearchCost(usd: number): void {
    this.cost.searches += 1;
    this.cost.searchUsd = roundUsd(this.cost.searchUsd + usd);
    this.cost.usd = roundUsd(this.cost.usd + usd);
    if (this.cost.withoutCacheUsd !== undefined) this.cost.withoutCacheUsd = roundUsd(this.cost.withoutCacheUsd + usd);
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

  finish(outcome: RunOutcome, endedBy?: string, stop?: StopInput): void {
    if (this.outcome) return;
    this.outcome = outcome;
    this.endedBy = endedBy;
    if (stop) this.stop = { ...(stop.by ? { by: stop.by } : {}), ...(stop.reason ? { reason: stop.reason } : {}) };
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
      ...(this.endedBy ? { endedBy: this.endedBy } : {}),
      cacheShare: this.cacheShare(),
      ...(this.input.spendCap ? { spendCap: this.input.spendCap } : {}),
      ...(this.repoContext?.instructions?.files.length ? { instructions: this.repoContext.instructions.files } : {}),
      ...(this.repoContext?.setup ? { setup: this.repoContext.setup } : {}),
      ...(this.input.routing ? { routing: routingView(this.input.routing) } : {}),
      ...(this.answersTo() ? { answersTo: this.answersTo() } : {}),
      ...(this.board?.block ? { board: { id: this.board.id, entries: this.board.shown.length } } : {}),
      ...(this.steps?.length ? { steps: this.steps.map((step) => ({ ...step })) } : {}),
      ...(this.stop ? { stop: this.stop } : {}),
    };
  }

  /** Where the run's result goes when it is not an answer in its conversation (its final card says so). */
  private answersTo(): RunStatus['answersTo'] {
    if (this.input.submitsTo === 'unit') return 'unit';
    if (this.input.parent) return 'parent';
    // An automatic review's answer is the review it posted: its thread posts no other.
    if (this.input.automaticReview && this.direct?.mode === 'review' && this.direct.delivered?.status === 'confirmed') return 'review';
    return undefined;
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
      ...(this.cacheWritten !== undefined ? { cacheWritten: this.cacheWritten } : {}),
      ...(this.uncertain.length ? { uncertain: this.uncertain } : {}),
      ...(this.card.generation > 0 ? { card: this.card } : {}),
      ...(this.repoContext ? { repoContext: this.repoContext } : {}),
      ...(this.mcp ? { mcp: this.mcp } : {}),
      ...(this.board ? { board: this.board } : {}),
      ...(this.steps ? { steps: this.steps } : {}),
      ...(this.reminded ? { reminded: this.reminded } : {}),
    };
  }

  /**
   * What the run is told when it would finish without answering its findings (undefined: nothing
   * missing, or told enough). A handoff is an answer too.
   */
  unansweredFindings(limit: number): string | undefined {
    const open = this.input.findings ?? [];
    if (open.length === 0 || this.reminded >= limit) return undefined;
    if (this.submissions.submit_dispositions !== undefined || this.submissions.submit_handoff !== undefined) return undefined;
    this.reminded += 1;
    return (
      `You have not answered the review's findings: ${open.map((finding) => finding.id).join(', ')}. ` +
      'Before you finish, call submit_dispositions with one answer for each (fixed, declined with the reason, or question), or submit_handoff if you cannot finish.'
    );
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
      ...(this.stop ? { stop: this.stop } : {}),
      ...(this.summary ? { summary: this.summary } : {}),
      submissions: this.submissions,
      startedAt: this.startedAt,
      endedAt: now,
      messageCount: this.messages.length,
      ...(this.compactions > 0 ? { compactions: this.compactions } : {}),
      cacheShare: this.cacheShare(),
      ...(this.input.spendCap ? { spendCap: this.input.spendCap } : {}),
      cardFailures: this.cardFailures,
      ...(this.uncertain.length ? { unconfirmed: this.uncertain } : {}),
      ...(this.direct?.mode === 'review' && this.direct.delivered?.sha
        ? { reviewed: { commitSha: this.direct.delivered.sha, status: this.direct.delivered.status } }
        : {}),
      ...(this.mcp ? { mcp: { usage: this.mcp.usage, tools: this.mcp.tools.map((tool) => tool.name), problems: this.mcp.problems } } : {}),
      ...(this.board?.block ? { board: { id: this.board.id, entries: this.board.shown.length, shown: this.board.shown } } : {}),
    };
  }
}
