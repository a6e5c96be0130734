import type { StopInput } from '../contracts';
import type { RunState } from './run-state';

/**
 * The Temporal calls a run's parts make, handed in by the workflow (the real `condition`,
 * `sleep`, `Date.now` …) so that unit tests can drive the parts with plain fakes. The
 * workflow passes the SDK functions themselves, never wrappers: a wrapper would add a
 * microtask between coroutines and could reorder the commands a history records.
 */
export interface WorkflowClock {
  readonly now: () => number;
  /** Resolves once `test` holds. */
  condition(test: () => boolean): Promise<void>;
  /** Resolves true once `test` holds, false when `timeoutMs` runs out first. */
  condition(test: () => boolean, timeoutMs: number): Promise<boolean>;
}

/**
 * What ends a run from outside the turn loop: a `stop`, and the budget's deadline timer. The
 * workflow's handlers set these; the loop, the task children and the waits read them.
 */
export class RunControl {
  stopRequest?: StopInput;
  budgetOver = false;

  constructor(
    private readonly state: RunState,
    private readonly now: () => number,
  ) {}

  /**
   * The deadline timer starts a little after the deadline is computed, so it can fire a
   * moment after a wait that ran to the deadline returned: the clock is checked as well.
   */
  pastDeadline(): boolean {
    return this.budgetOver || this.state.remainingMs(this.now()) <= 0;
  }

  /** A stop or the budget: whatever is waiting should give up. */
  ending(): boolean {
    return this.budgetOver || this.stopRequest !== undefined;
  }
}

export function stopWords(stop: StopInput): string {
  return [stop.by ? `stopped by ${stop.by}` : 'stopped', stop.reason].filter(Boolean).join(': ');
}
