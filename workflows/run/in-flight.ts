import { isCancellation } from '@temporalio/workflow';
import type { RunControl } from './run-control';
import type { RunState } from './run-state';

/** The `patched()` id of a deadline that no longer cancels work meant to run past it (the closing summary). */
export const DEADLINE_SPARES_AFTER_DEADLINE_WORK = 'deadline-spares-after-deadline-work';

/** What the run uses of a `CancellationScope` (the workflow hands in the real one; tests a fake). */
export interface CancellableScope {
  run<T>(work: () => Promise<T>): Promise<T>;
  cancel(): void;
}

export interface InFlightDeps {
  state: RunState;
  control: RunControl;
  /** `new CancellationScope()`, made when the work starts (its parent is the scope current then). */
  newScope(): CancellableScope;
  /** `patched` from the SDK (a fake in unit tests). */
  patched: (id: string) => boolean;
}

/**
 * The one piece of the run's work that a stop or the budget's deadline may cancel: a model
 * turn, a turn's tool calls, a step before the first turn. The work runs in a scope of its
 * own; a stop or the deadline cancels that scope, and the work answers undefined.
 */
export class InFlight {
  private scope?: CancellableScope;
  private afterDeadline = false;

  constructor(private readonly deps: InFlightDeps) {}

  /**
   * Runs `work` so that a stop or the deadline can cancel it; undefined when cancelled (or the
   * run is already ending). `afterDeadline`: it may start past the deadline (a stop still ends it).
   * An arrow, so the run loop can be handed it as it is (no wrapper between coroutines).
   */
  readonly cancellable = async <T>(work: () => Promise<T>, options: { afterDeadline?: boolean } = {}): Promise<T | undefined> => {
    const { control } = this.deps;
    if (control.stopRequest || (!options.afterDeadline && control.pastDeadline())) return undefined;
    const scope = this.deps.newScope();
    this.scope = scope;
    this.afterDeadline = options.afterDeadline ?? false;
    try {
      return await scope.run(work);
    } catch (error) {
      if (isCancellation(error)) return undefined;
      throw error;
    } finally {
      this.scope = undefined;
      this.afterDeadline = false;
    }
  };

  /** Cancels the work in flight, if any (a stop). */
  cancel(): void {
    this.scope?.cancel();
  }

  /**
   * The budget's deadline timer fired. Work meant to run past the deadline (the closing summary)
   * may have started a moment before the timer fired (the loop saw the deadline first): it is
   * spared. Runs recorded before the marker cancelled it (the marker is asked only then).
   */
  deadlinePassed(): void {
    this.deps.control.budgetOver = true;
    if (this.afterDeadline && this.deps.patched(DEADLINE_SPARES_AFTER_DEADLINE_WORK)) return;
    this.scope?.cancel();
  }
}
