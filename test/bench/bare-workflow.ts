import { proxyActivities, proxyLocalActivities, startChild } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(id: string): Promise<void> }>({ startToCloseTimeout: '10 seconds' });

/** The floor: a bare Temporal workflow with one trivial activity. */
export async function bareWorkflow(id: string): Promise<string> {
  await noop(id);
  return id;
}

/**
 * The floor with one child-workflow hop, as a thread starts its run: a diagnostic row that
 * shows what the hop itself costs on the same server, with none of our code in it.
 */
export async function bareParentWorkflow(id: string): Promise<string> {
  const child = await startChild(bareWorkflow, { workflowId: `${id}-child`, args: [`${id}-child`] });
  return child.result();
}

const { startEagerly } = proxyLocalActivities<{ startEagerly(id: string): Promise<void> }>({ startToCloseTimeout: '10 seconds' });

/**
 * The floor with the child started instead by a local activity through a client on the
 * worker's own connection, with eager workflow start: a diagnostic of that alternative.
 */
export async function bareEagerParentWorkflow(id: string): Promise<string> {
  await startEagerly(`${id}-child`);
  return id;
}
