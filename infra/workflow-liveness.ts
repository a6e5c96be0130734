import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { type WorkflowLiveness } from '../activities/sandbox/janitor';

/** Whether a workflow still runs, as the workspace janitor asks it (the newest run of its id). */
export function workflowLiveness(client: Client): WorkflowLiveness {
  return async (workflowId) => {
    try {
      const description = await client.workflow.getHandle(workflowId).describe();
      return description.status.name === 'RUNNING' ? 'running' : 'closed';
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return 'unknown';
      throw error;
    }
  };
}
