/** What the run watch's `runProgress` activity returns (activities/runs/run-progress.ts). */

/** What a thread learns about its current run while it waits for it. */
export interface RunProgress {
  /** Whether the run's execution is still open (a closed one is about to resolve the thread's wait). */
  open: boolean;
  /** How often the run's pending workflow task has been tried (0: none pending, or it completes). */
  workflowTaskAttempts: number;
}
