import { rootCause } from '@temporalio/common';
import type { ModelTurnResult, ToolCall, ToolResult } from '../../activities/models/types';
import { modelToolSchemas, type ModelToolSchema } from '../../tools';
import type { ModelActivities } from '../activity-proxies';
import type { RunCarry } from '../contracts';
import { stopWords, type RunControl, type WorkflowClock } from './run-control';
import type { RunState } from './run-state';
import type { StatusCard } from './status-card';
import type { TaskChildren } from './task-children';
import { closingSummary, type Bound } from './closing-summary';

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
    this.tools = modelToolSchemas(deps.state.input.profile.tools);
  }

  async run(): Promise<void> {
    const { state, control, clock, card, children } = this.deps;
    const { profile } = state.input;
    try {
      while (!state.finished) {
        if (control.stopRequest) {
          state.finish('stopped', stopWords(control.stopRequest));
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
        children.collect();
        state.drainSteers();
        if (state.needsCompaction()) {
          state.phase = 'summarising';
          const summary = await this.deps.cancellable(() => this.compactionTurn());
          if (summary) state.applyCompaction(summary);
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
    const { runId, state } = this.deps;
    const { profile, system } = state.input;
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

  /** Summarises older turns near the window's limit: a turn of its own, without tools, not counted against the guard. */
  private compactionTurn(): Promise<ModelTurnResult> {
    const { runId, state, models } = this.deps;
    const { profile, system } = state.input;
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

  /** A bound ends the run: one last turn without tools writes what was done and what is left (closing-summary.ts). */
  private closingSummary(bound: Bound, words: string): Promise<void> {
    const touchCard = () => this.deps.card.touch();
    return closingSummary({ ...this.deps, touchCard, turnWithoutTools: (models) => this.turn(false, models) }, bound, words);
  }
}

function isContinueAsNew(error: unknown): boolean {
  return (error as { name?: string })?.name === 'ContinueAsNew';
}
