import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { resolveTemporalBinary } from '../../infra/temporal-binaries';
import { testTemporalAddress } from './temporal';
import { waitUntil } from './wait';

const exec = promisify(execFile);

/** `temporal workflow reset` from the CLI, as an operator runs it, to a workflow task's event; resolves once the reset execution exists. */
export async function resetTo(client: Client, workflowId: string, eventId: number): Promise<void> {
  const before = (await client.workflow.getHandle(workflowId).describe()).runId;
  await exec(resolveTemporalBinary('cli').path, [
    'workflow',
    'reset',
    '--address',
    testTemporalAddress(),
    '--workflow-id',
    workflowId,
    '--event-id',
    String(eventId),
    '--reason',
    'reset test',
    '--yes',
  ]);
  await waitUntil(
    () => client.workflow.getHandle(workflowId).describe(),
    (description) => description.runId !== before,
  );
}

/** The workflow task that started `childId` (the one a reset must run again to start it again). */
export async function startedBy(client: Client, workflowId: string, childId: string): Promise<number> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const initiated = events.find((event) => event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId === childId);
  if (!initiated) throw new Error(`${workflowId} did not start ${childId}`);
  return Number(initiated.startChildWorkflowExecutionInitiatedEventAttributes!.workflowTaskCompletedEventId);
}

/** The failed workflow tasks of the workflow's latest execution (the reset's own marker of where it reset is not one). */
export async function failedTasks(client: Client, workflowId: string): Promise<Array<string | null | undefined>> {
  return ((await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [])
    .filter(
      (event) =>
        event.workflowTaskFailedEventAttributes &&
        event.workflowTaskFailedEventAttributes.cause !==
          temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW,
    )
    .map((event) => event.workflowTaskFailedEventAttributes?.failure?.message);
}
