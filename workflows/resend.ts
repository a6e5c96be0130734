import { githubWrites, status, units } from './activity-proxies';
import { failure, type ResendRecord, type ResendWorkflowInput } from './contracts';
import { UncertainWrites } from './effects/uncertain-writes';

/**
 * The resend of an unconfirmed write of a workflow that has closed (a settled unit's report
 * comment, say): started on `resend:<new key>` by `switchboard resend` or by hand, it reads the
 * closed workflow's record, refuses a key it does not list as unconfirmed, sends the write once
 * under the new key, and its own record is the decision (who, when, outcome). A running unit or
 * thread takes the `resend` update instead and records the decision itself.
 */
export async function resendWorkflow(input: ResendWorkflowInput): Promise<ResendRecord> {
  const found = await units.findUncertainWrites({ workflowId: input.workflowId });
  if (found.running) {
    throw failure('resend_refused', `${found.workflowId} is still running: send it the \`resend\` update (switchboard resend does)`);
  }
  const writes = new UncertainWrites(found.writes, { githubWrites, status }, { now: () => Date.now(), workflowId: found.workflowId });
  return writes.resend(input);
}
