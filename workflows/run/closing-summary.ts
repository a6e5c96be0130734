import { ActivityFailure } from '@temporalio/common';
import type { ModelTurnResult } from '../contracts/model';
import type { ModelActivities } from '../activity-proxies';
import type { WorkflowClock } from './run-control';
import type { RunState } from './run-state';

/**
 * The marker for the closing summary after every bound. Runs recorded before it had a summary
 * only at the turn guard, and only with a minute of budget left; remove the `false` branch once
 * no run started before this change can still be running (docs/versioning.md).
 */
export const CLOSING_SUMMARY_PATCH = 'closing-summary';

/** Before the patch: budget the turn guard's summary had to have left to be written. */
export const SUMMARY_RESERVE_MS = 60_000;

/** Which bound ended the run. */
export type Bound = 'budget' | 'turns' | 'tokens' | 'spend';

export interface ClosingSummaryDeps {
  state: RunState;
  clock: WorkflowClock;
  /** `patched` from the SDK (a fake in unit tests). */
  patched(id: string): boolean;
  /** Runs `work` so that a stop (and, unless `afterDeadline`, the deadline) can cancel it. */
  cancellable<T>(work: () => Promise<T>, options?: { afterDeadline?: boolean }): Promise<T | undefined>;
  /** The status card shows the new phase. */
  touchCard(): void;
  /** The summary's model turn, on these activities (with the run's tools under the cache plan; without, before it). */
  summaryTurn(models: ModelActivities): Promise<ModelTurnResult>;
  models: ModelActivities;
  /** The model activity with the short closing policy (POLICIES.closingSummary). */
  closingModels: ModelActivities;
}

/**
 * When a bound ends the run: one last turn without tools in which the model writes what was
 * done and what is left, so the person gets a summary rather than the last interim text. The
 * budget's summary runs after the deadline (a stop still cancels it); a summary that fails
 * leaves the run's last text as its answer, and the run still settles with its bound.
 */
export async function closingSummary(deps: ClosingSummaryDeps, bound: Bound, words: string): Promise<void> {
  const { state, clock } = deps;
  if (!deps.patched(CLOSING_SUMMARY_PATCH)) {
    if (bound !== 'turns' || state.remainingMs(clock.now()) < SUMMARY_RESERVE_MS) return;
    state.phase = 'summarising';
    state.note(notice(words));
    const result = await deps.cancellable(() => deps.summaryTurn(deps.models));
    if (result) state.recordTurn(result);
    return;
  }
  state.phase = 'summarising';
  deps.touchCard();
  state.note(notice(words));
  try {
    const result = await deps.cancellable(() => deps.summaryTurn(deps.closingModels), { afterDeadline: true });
    if (!result) return;
    state.recordTurn(result, 'summary');
    if (result.text.trim()) state.summary = result.text;
  } catch (error) {
    // The model could not write it: the run settles with its bound and its last text.
    if (!(error instanceof ActivityFailure)) throw error;
  }
}

function notice(words: string): string {
  return `(system) The run has reached ${words}. Tools are no longer available: answer now with what you found, what is done and what is left.`;
}
