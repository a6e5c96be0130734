import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { rootCause } from '@temporalio/common';

/**
 * A closed workflow's result, or why it has none. Runs and units settle with a record even when
 * they fail; a workflow that still ended without one (terminated, timed out, or one from before
 * that change) is answered with its status and root cause, never the bare "Workflow execution failed".
 */
export async function closedResult<T>(handle: WorkflowHandle, status: string): Promise<{ record: T } | { reason: string }> {
  try {
    return { record: (await handle.result()) as T };
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    return { reason: `${status.toLowerCase()}: ${rootCause(error.cause) ?? error.message}` };
  }
}
