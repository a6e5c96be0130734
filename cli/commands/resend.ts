import { userInfo } from 'node:os';
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { type Command } from 'commander';
import { findUncertainWrites, listingWorkflowOf, resendWorkflowId } from '../../activities/units/uncertain-client';
import { resendUpdate, resendWorkflowType, type ResendRecord, type UncertainWrite } from '../../workflows/contracts';
import { describeWrite } from '../../workflows/effects/uncertain-writes';
import { withCliClient } from '../temporal-client';

/** `switchboard resend <workflow> <effect>`: an operator's deliberate resend of an unconfirmed write. */
export function registerResendCommand(program: Command): void {
  program
    .command('resend')
    .description(
      'send an unconfirmed write (comment, review, PR, reply) once more under a new effect key, recorded as your decision; `units get` / `runs get` list them',
    )
    .argument('<workflowId>', 'the unit, thread or run that lists it, e.g. unit:acme/app#7 or run:thread:…:1')
    .argument('<effectKey>', 'the unconfirmed write, e.g. unit:acme/app#7/report-comment')
    .option('--by <who>', 'who decides (default: your login name)')
    .option('--reason <text>', 'why it is sent again')
    .action(async (workflowId: string, effectKey: string, options: { by?: string; reason?: string }) => {
      await withCliClient(async ({ client, taskQueue }) => {
        const request = { effectKey, by: options.by ?? userInfo().username, ...(options.reason ? { reason: options.reason } : {}) };
        const record = await resend(client, taskQueue, workflowId, request);
        const { decision } = record;
        console.log(
          `resent ${describeWrite(record.write)} as ${decision.effectKey}: ${decision.status}${decision.detail ? ` (${decision.detail})` : ''}; decided by ${decision.by} at ${new Date(decision.at).toISOString()}`,
        );
        if (decision.status !== 'confirmed') process.exitCode = 1;
      });
    });
}

/**
 * A running unit or thread takes the `resend` update (the decision goes into its own record);
 * a closed one gets a `resendWorkflow` on `resend:<new key>`, whose record is the decision.
 */
export async function resend(
  client: Client,
  taskQueue: string,
  workflowId: string,
  request: { effectKey: string; by: string; reason?: string },
): Promise<ResendRecord> {
  const listing = listingWorkflowOf(workflowId);
  const running = (await client.workflow.getHandle(listing).describe()).status.name === 'RUNNING';
  try {
    if (running) return await client.workflow.getHandle(listing).executeUpdate(resendUpdate, { args: [request] });
    const handle = await client.workflow.start(resendWorkflowType, {
      workflowId: resendWorkflowId(request.effectKey),
      taskQueue,
      args: [{ workflowId: listing, ...request }],
      // A refused attempt may be asked again; a completed resend is the decision, never repeated.
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      staticSummary: `resend ${request.effectKey} (by ${request.by})`,
    });
    return await handle.result();
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      const done = await client.workflow.getHandle<typeof resendWorkflowType>(resendWorkflowId(request.effectKey)).result();
      throw new Error(
        `resend refused: ${done.decision.by} already resent ${request.effectKey} at ${new Date(done.decision.at).toISOString()} as ${done.decision.effectKey} (${done.decision.status})`,
      );
    }
    if (error instanceof WorkflowUpdateFailedError || error instanceof WorkflowFailedError)
      throw new Error(`resend refused: ${error.cause?.message ?? error.message}`);
    throw error;
  }
}

/** The unconfirmed writes a workflow lists, in words, for `units get` and `runs get`; empty when there are none. */
export function formatUncertain(writes: UncertainWrite[], workflowId: string): string {
  if (writes.length === 0) return '';
  const lines = ['', `Unconfirmed writes (${writes.length}): delivery could not be confirmed and they were not sent again.`];
  for (const write of writes) {
    lines.push(`- could not confirm delivery of ${describeWrite(write)}`, `  effect: ${write.effectKey}`, `  reason: ${write.reason}`);
    if (write.resent) {
      const r = write.resent;
      lines.push(
        `  resent by ${r.by} at ${new Date(r.at).toISOString()} as ${r.effectKey}: ${r.status}${r.reason ? ` (why: ${r.reason})` : ''}`,
      );
    } else lines.push(`  resend: switchboard resend ${workflowId} ${write.effectKey}`);
    lines.push(...write.text.split('\n').map((line) => `  > ${line}`));
  }
  return lines.join('\n');
}

/** The unconfirmed writes of a unit, thread or run (its thread's, for a run's answer), or none when they cannot be read. */
export async function uncertainOf(client: Client, workflowId: string): Promise<UncertainWrite[]> {
  try {
    const found = await findUncertainWrites(client, workflowId);
    // A run's thread lists every run's answers: keep this run's.
    return found.workflowId === workflowId ? found.writes : found.writes.filter((w) => w.effectKey.startsWith(`${workflowId}/`));
  } catch {
    return [];
  }
}
