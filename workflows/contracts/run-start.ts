/** What a thread's `startRun` and `runOutcome` activities take and return (activities/runs/run-start.ts). */

import type { RunInput } from './run';
import type { RunEnded } from './thread';

/** What a thread asks for when it starts a run (workflows/thread/run-start.ts). */
export interface StartRunInput {
  /** `run:<thread-id>:<n>`. */
  runId: string;
  /** The thread's own task queue: the worker that runs the thread gets the run's first task back eagerly. */
  taskQueue: string;
  input: RunInput;
  /**
   * The thread's first execution run id (the same across its continue-as-new and resets, new when
   * the thread ended and a later message began it again): a closed run of this id from the same
   * thread is its own, adopted; one from an earlier life of the thread is not.
   */
  threadExecution: string;
  staticSummary: string;
  staticDetails: string;
}

/**
 * The start's answer: the run is running (started now, `eager` when its first workflow task came
 * back in the start's response; or already, started by an earlier attempt of this start or by the
 * thread before a reset), or it had already ended (a reset thread finds the run it started before),
 * with its end.
 */
export type StartRunResult = { runId: string; eager: boolean } | { runId: string; ended: RunEnded };

/** `runOutcome`'s answer: the run's end, or `open` when it is still running (the thread goes on waiting). */
export type RunOutcome = RunEnded & { open?: boolean };
