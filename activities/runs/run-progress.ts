import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { RunRecord } from '../../workflows/contracts';
import { currentCallContext, withHeartbeat } from '../models/activity-context';
import type { RunProgress } from '../../workflows/contracts/run-progress';

/**
 * `runProgress`: describes a run for its thread, which cannot see from workflow code that
 * the run's workflow tasks keep failing (Temporal keeps such a run `Running` forever).
 */
export function createRunProgressActivities(deps: { client: Client }) {
  return {
    /**
     * `awaitRun`: waits for a run this workflow did not start in its own history to end (a unit
     * reset while its run worked finds that run still going under the id it would start) and
     * answers its record; none when it failed, was terminated or is gone. Heartbeats while it
     * waits, and stops waiting when cancelled.
     */
    async awaitRun(input: { runId: string }): Promise<{ record?: RunRecord; ended?: string }> {
      const call = currentCallContext();
      const wait = () => deps.client.workflow.getHandle(input.runId).result() as Promise<RunRecord>;
      try {
        const record = await withHeartbeat(call, 5_000, () => (call.signal ? deps.client.withAbortSignal(call.signal, wait) : wait()));
        return { record };
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return { ended: 'it is gone' };
        if (error instanceof WorkflowFailedError) return { ended: error.cause?.message ?? error.message };
        throw error;
      }
    },

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
