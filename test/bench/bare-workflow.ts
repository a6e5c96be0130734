import { proxyActivities } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(id: string): Promise<void> }>({ startToCloseTimeout: '10 seconds' });

/** The floor: a bare Temporal workflow with one trivial activity. */
export async function bareWorkflow(id: string): Promise<string> {
  await noop(id);
  return id;
}
