import { WorkflowNotFoundError, type Client } from '@temporalio/client';

/**
 * When a run closed (the server's clock), waiting for it first. The thread reports a run's id
 * as soon as it decides, a moment before the run exists, so "not found" is waited out.
 */
export async function closedAt(client: Client, workflowId: string): Promise<number> {
  const handle = client.workflow.getHandle(workflowId);
  for (;;) {
    try {
      await handle.result();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      // A failed or stopped run has closed too: its close time still counts.
    }
    const closeTime = (await handle.describe()).closeTime;
    if (closeTime) return closeTime.getTime();
  }
}
