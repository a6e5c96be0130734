import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import {
  resendKey,
  type resendWorkflowType,
  uncertainWritesQuery,
  type ResendDecision,
  type ResendRecord,
  type UncertainWrite,
  type UncertainWritesFound,
} from '../../workflows/contracts';

/**
 * The workflow that delivers a run's writes to people: a top-level run's answer is posted by
 * its thread (`run:<thread-id>:<n>` → `<thread-id>`); a unit, a thread or anything else lists its own.
 */
export function listingWorkflowOf(workflowId: string): string {
  const run = /^run:(.+):\d+$/.exec(workflowId);
  return run && !workflowId.includes('/task-') ? run[1] : workflowId;
}

/**
 * A workflow's unconfirmed writes: the `uncertainWrites` query while it runs, the `unconfirmed`
 * of its record once it has closed. A closed workflow's resends are `resendWorkflow`s on
 * `resend:<new key>`; their decisions are folded in here.
 */
export async function findUncertainWrites(client: Client, workflowId: string): Promise<UncertainWritesFound> {
  const listing = listingWorkflowOf(workflowId);
  const handle = client.workflow.getHandle(listing);
  const description = await handle.describe();
  if (description.status.name === 'RUNNING')
    return { workflowId: listing, running: true, writes: await handle.query(uncertainWritesQuery) };
  const record = (await handle.result().catch(() => undefined)) as { unconfirmed?: UncertainWrite[] } | undefined;
  const writes = [...(record?.unconfirmed ?? [])];
  for (let index = 0; index < writes.length; index += 1) {
    const write = writes[index];
    if (write.resent) continue;
    const resend = await closedResend(client, write.effectKey);
    if (!resend) continue;
    write.resent = resend.decision;
    // A copy that was itself unconfirmed is listed under its own key, so it can be resent in turn.
    if (resend.decision.status === 'unconfirmed') writes.push(copyOf(write, resend.decision));
  }
  return { workflowId: listing, running: false, writes };
}

function copyOf(write: UncertainWrite, decision: ResendDecision): UncertainWrite {
  const { resent: _resent, ...rest } = write;
  return {
    ...rest,
    effectKey: decision.effectKey,
    reason: decision.detail ?? write.reason,
    at: decision.at,
    call: { ...write.call, input: { ...write.call.input, effectKey: decision.effectKey } } as UncertainWrite['call'],
  };
}

/** The `resendWorkflow` that resent this write of a closed workflow, if one completed. */
export async function closedResend(client: Client, effectKey: string): Promise<ResendRecord | undefined> {
  const handle = client.workflow.getHandle<typeof resendWorkflowType>(resendWorkflowId(effectKey));
  try {
    if ((await handle.describe()).status.name !== 'COMPLETED') return undefined;
    return await handle.result();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/** `resend:<new effect key>`: one resend of a closed workflow's write, readable in the Web UI. */
export function resendWorkflowId(effectKey: string): string {
  return `resend:${resendKey(effectKey)}`;
}

/** For `resendWorkflow`: the writes a closed workflow's record lists. */
export function createUncertainClientActivities(deps: { client: Client }) {
  return {
    async findUncertainWrites(input: { workflowId: string }): Promise<UncertainWritesFound> {
      return findUncertainWrites(deps.client, input.workflowId);
    },
  };
}
