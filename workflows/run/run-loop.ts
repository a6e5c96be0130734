import { rootCause } from '@temporalio/common';
import type { ChatMessage, ModelTool, ModelTurnResult, ToolCall, ToolResult, TurnPurpose } from '../contracts/model';
import { modelToolSchemas, type ModelToolSchema } from '../../tools';
import { taskDescription } from '../../tools/task';
import type { ModelActivities } from '../activity-proxies';
import type { RunCarry } from '../contracts';
import { stopWords, type RunControl, type WorkflowClock } from './run-control';
import type { RunState } from './run-state';
import type { StatusCard } from './status-card';
import type { TaskChildren } from './task-children';
import { closingSummary, type Bound } from './closing-summary';
import { cacheHint, chooseCacheTtl, latestCalls } from './cache-plan';

/**
 * The `patched()` id of the cache plan (cache-plan.ts): each request carries where to write and
 * read the prompt cache and a lifetime chosen from what the run is about to do, compaction and
 * closing-summary turns are sent with the run's tools and parameters, and a compaction's usage
 * and cost are counted. Runs recorded before it send what they sent (docs/versioning.md).
 */
export const CACHE_PLAN_PATCH = 'cache-plan';

/** How often a run that would finish without answering its findings is told so (then it may finish). */
export const FINDINGS_REMINDERS = 1;

export interface RunLoopDeps {
  runId: string;
  state: RunState;
  control: RunControl;
  clock: WorkflowClock;
  card: StatusCard;
  children: TaskChildren;
  models: ModelActivities;
  /** The model activity with the short closing-summary policy. */
  closingModels: ModelActivities;
  /** `patched` from the SDK (a fake in unit tests). */
  patched(id: string): boolean;
  /** Runs one turn's tool calls (tool-dispatch.ts with the run's executors). */
  executeTools(calls: ToolCall[]): Promise<ToolResult[]>;
  /**
   * Runs `work` so that a stop or the deadline can cancel it; undefined when cancelled (or
   * already ending). `afterDeadline`: it may start past the deadline (a stop still ends it).
   */
  cancellable<T>(work: () => Promise<T>, options?: { afterDeadline?: boolean }): Promise<T | undefined>;
  /** Temporal suggests continue-as-new (history size). */
  continueAsNewSuggested(): boolean;
  /** Continues the run as new with this carry; never returns. */
  continueAsNew(carry: RunCarry): Promise<never>;
}

/**
 * The model-turn loop: bounds first (stop, deadline, turn guard), then a turn, then the turn's
 * tool calls, until the model answers without tools or a bound ends the run. The record says
 * which bound. Unexpected failures settle the run as `failed`.
 */
export class RunLoop {
  private readonly tools: ModelToolSchema[];

  constructor(private readonly deps: RunLoopDeps) {
    // Built once: the run's tools and its MCP tools (discovered before the loop starts, carried after), byte for byte the same every turn.
    const { profile } = deps.state.input;
    // A role this run is not offered (rubber-duck without a model of another family) is not named by its task tool.
    const off = (profile.rolesOff ?? []).map((entry) => entry.role);
    this.tools = [
      ...modelToolSchemas(profile.tools).map((tool) =>
        tool.name === 'task' && off.length ? { ...tool, description: taskDescription(off) } : tool,
      ),
      ...(deps.state.mcp?.tools ?? []).map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })),
    ];
  }

  async run(): Promise<void> {
    const { state, control, clock, card, children } = this.deps;
    const { profile } = state.input;
    try {
      while (!state.finished) {
        if (control.stopRequest) {
          state.finish('stopped', stopWords(control.stopRequest), control.stopRequest);
          break;
        }
        if (control.pastDeadline()) {
          await this.closingSummary('budget', `the ${profile.budget.minutes}-minute budget`);
          state.finish('budget', `the ${profile.budget.minutes}-minute budget (${profile.budget.boundedBy})`);
          break;
        }
        if (state.turns >= profile.turnGuard) {
          await this.closingSummary('turns', `the turn guard of ${profile.turnGuard} turns`);
          state.finish('turns', `the turn guard (${profile.turnGuard} turns)`);
          break;
        }
        const spendCap = state.input.spendCap;
        if (spendCap && state.pastSpendCap()) {
          // A money bound ends the run like its time budget: a closing summary, then the record says which cap.
          await this.closingSummary('spend', `its spend cap of ${usd(spendCap.usd)} (${usd(state.cost.usd)} spent)`);
          state.finish('spend', spendCap.boundedBy);
          break;
        }
        children.collect();
        state.drainSteers();
        if (state.needsCompaction()) {
          state.phase = 'summarising';
          const counted = this.deps.patched(CACHE_PLAN_PATCH);
          const summary = await this.deps.cancellable(() => (counted ? this.purposeTurn('compaction') : this.compactionTurn()));
          if (summary) state.applyCompaction(summary, counted);
        }
        state.phase = 'thinking';
        card.touch();
        const result = await this.deps.cancellable(() => this.turn(true));
        if (!result) continue;
        state.recordTurn(result);
        card.touch();
        if (result.stopReason === 'max_tokens' && result.toolCalls.length === 0) {
          await this.closingSummary('tokens', `the token cap of ${profile.tokenCap} tokens per call`);
          state.finish('tokens', `the token cap of ${profile.tokenCap} per call`);
          break;
        }
        if (result.toolCalls.length === 0) {
          const pending = children.pending();
          if (state.pendingSteers.length > 0) continue;
          // A unit's coding round that must answer findings is told so before it may finish (once).
          const unanswered = pending ? undefined : state.unansweredFindings(FINDINGS_REMINDERS);
          if (unanswered) {
            state.note(unanswered);
            continue;
          }
          if (!pending) {
            state.finish('completed');
            break;
          }
          state.phase = 'waiting';
          await clock.condition(() => children.anyDone() || control.ending() || state.pendingSteers.length > 0);
          continue;
        }
        state.phase = 'tools';
        const results = await this.deps.cancellable(() => this.deps.executeTools(result.toolCalls));
        state.recordToolResults(
          results ??
            result.toolCalls.map((call) => ({ callId: call.id, name: call.name, content: 'Cancelled: the run is ending.', isError: true })),
        );
        if (this.deps.continueAsNewSuggested() && children.size === 0) {
          await card.settle(false);
          await this.deps.continueAsNew(state.carry());
        }
      }
    } catch (error) {
      if (isContinueAsNew(error)) throw error;
      // The root cause says why (a refused script, a missing key), not "Activity task failed".
      state.finish('failed', rootCause(error) ?? String(error));
    }
  }

  private turn(withTools: boolean, models: ModelActivities = this.deps.models): Promise<ModelTurnResult> {
    if (withTools && this.deps.patched(CACHE_PLAN_PATCH)) return this.request({ models, messages: this.deps.state.messages });
    const { runId, state } = this.deps;
    const { profile } = state.input;
    const system = state.system;
    return models.modelTurn({
      model: profile.model.value,
      system,
      messages: state.messages,
      tools: withTools ? this.tools : [],
      maxTokens: profile.tokenCap,
      cacheTtl: profile.cacheTtl,
      runId,
      turn: state.turns + 1,
      ...(profile.effort.value ? { effort: profile.effort.value } : {}),
    });
  }

  /**
   * One request with the run's tools and parameters and its cache plan: write the prefix the
   * next request keeps (at most `keep` leading messages), read where the last one wrote, with the
   * lifetime chosen from what the run is about to do. `noCache`: without tools, writing nothing.
   */
  private async request(options: {
    models: ModelActivities;
    messages: ChatMessage[];
    purpose?: TurnPurpose;
    keep?: number;
    noCache?: boolean;
  }): Promise<ModelTurnResult> {
    const { runId, state, clock, children } = this.deps;
    const { profile } = state.input;
    const system = state.system;
    const hint = cacheHint(options.messages, state.cacheWritten, options.keep);
    const cacheTtl = chooseCacheTtl({
      ceiling: profile.cacheTtl,
      childrenPending: children.pending(),
      lastCalls: latestCalls(state.messages),
      ...(state.lastTurnEndedAt !== undefined ? { lastStepMs: clock.now() - state.lastTurnEndedAt } : {}),
    });
    const tools: ModelTool[] = options.noCache ? [] : this.tools;
    const result = await options.models.modelTurn({
      model: profile.model.value,
      system,
      messages: options.messages,
      tools,
      maxTokens: profile.tokenCap,
      cacheTtl,
      runId,
      turn: state.turns + 1,
      ...(profile.effort.value ? { effort: profile.effort.value } : {}),
      ...(options.purpose ? { purpose: options.purpose } : {}),
      ...(options.noCache ? {} : { cache: hint }),
    });
    if (!options.noCache) state.cacheWritten = hint.stable;
    state.lastTurnEndedAt = clock.now();
    return result;
  }

  /**
   * A compaction or closing-summary turn: the conversation, then the request for it, sent like
   * any turn so the cached prefix is read (a tool call it makes is ignored). Should the model
   * answer with tool calls and no text, it is asked once more without tools, writing no cache
   * (that prefix is the run's no longer); both calls are counted.
   */
  private async purposeTurn(purpose: 'compaction' | 'summary', models: ModelActivities = this.deps.models): Promise<ModelTurnResult> {
    const { state } = this.deps;
    const messages = purpose === 'compaction' ? state.compactionMessages() : state.messages;
    // A compaction keeps only the task: the rest is rewritten. A summary ends the run: nothing new is worth writing.
    const keep = purpose === 'compaction' ? state.taskLength : (state.cacheWritten ?? 0);
    const result = await this.request({ models, messages, purpose, keep });
    if (result.text.trim() || this.tools.length === 0) return result;
    state.recordUsage(result, state.turns + 1, purpose);
    return this.request({ models, messages, purpose, noCache: true });
  }

  /** Before the cache plan: summarises older turns without tools; not counted against the guard. */
  private compactionTurn(): Promise<ModelTurnResult> {
    const { runId, state, models } = this.deps;
    const { profile } = state.input;
    const system = state.system;
    return models.modelTurn({
      model: profile.model.value,
      system,
      messages: state.compactionMessages(),
      tools: [],
      maxTokens: profile.tokenCap,
      cacheTtl: profile.cacheTtl,
      runId,
      turn: state.turns + 1,
      purpose: 'compaction',
    });
  }

  /** A bound ends the run: one last turn writes what was done and what is left (closing-summary.ts). */
  private closingSummary(bound: Bound, words: string): Promise<void> {
    const touchCard = () => this.deps.card.touch();
    const summaryTurn = (models: ModelActivities) =>
      this.deps.patched(CACHE_PLAN_PATCH) ? this.purposeTurn('summary', models) : this.turn(false, models);
    return closingSummary({ ...this.deps, touchCard, summaryTurn }, bound, words);
  }
}

/** `$2.00`, `$0.0500`: as the card and the CLI show dollars. */
function usd(value: number): string {
  return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`;
}

function isContinueAsNew(error: unknown): boolean {
  return (error as { name?: string })?.name === 'ContinueAsNew';
}
