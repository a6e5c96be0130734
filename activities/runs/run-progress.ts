import { WorkflowNotFoundError, type Client } from '@temporalio/client';

/** What a thread learns about its current run while it waits for it. */
export interface RunProgress {
  /** Whether the run's execution is still open (a closed one is about to resolve the thread's wait). */
  open: boolean;
  /** How often the run's pending workflow task has been tried (0: none pending, or it completes). */
  workflowTaskAttempts: number;
}

/**
 * `runProgress`: describes a run for its thread, which cannot see from workflow code that
 * the run's workflow tasks keep failing (Temporal keeps such a run `Running` forever).
 */
export function createRunProgressActivities(deps: { client: Client }) {
  return {
    async runProgress(input: { runId: string }): Promise<RunProgress> {
      try {
        const description = await deps.client.workflow.getHandle(input.runId).describe();
        return {
          open: description.status.name === 'RUNNING',
          workflowTaskAttempts: description.raw.pendingWorkflowTask?.attempt ?? 0,
        };
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return { open: false, workflowTaskAttempts: 0 };
        throw error;
      }
    },
  };
}
