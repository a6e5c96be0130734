import { patched, workflowInfo } from '@temporalio/workflow';
import type { AgentSetup } from '../../activities/agents/agent-setup';
import { admitControl, type AdmissionRefusal, type Person } from '../../agents';
import { units } from '../activity-proxies';
import type { ShipUnitInput, ThreadMessage } from '../contracts';
import { personOf } from './decide';
import { SHIP_STEER_ADMITTED, type shipStart } from './ship-start';

/**
 * A code-change request becomes a ship unit on its own id (never a child of the thread), as
 * `shipStart` names it. A unit that is already running gets the request as a steer, once the
 * admission says this person may steer it (their own, or theirs by the conversation's surface).
 */
export async function startShipUnit(
  start: ReturnType<typeof shipStart>,
  message: ThreadMessage,
  setup: AgentSetup,
): Promise<{ kind: 'unit' | 'refused'; unitId?: string; reply: string; code?: string }> {
  if ('refused' in start) return { kind: 'refused', ...start.refused };
  const { input } = start;
  const { unitId } = input;
  if (patched(SHIP_STEER_ADMITTED)) {
    const refused = await existingUnitRefusal(input, personOf(message), setup);
    if (refused) return { kind: 'refused', code: refused.code, reply: refused.message };
  }
  const started = await units.startUnit({ ...input, effectKey: `${workflowInfo().workflowId}/unit/${message.messageId}` });
  // Missing settings, or (under a daily spend cap) a first round the caps cannot fund.
  if (started.status === 'refused')
    return { kind: 'refused', code: started.code ?? 'settings_missing', reply: started.reason ?? 'Not started.' };
  return {
    kind: 'unit',
    unitId,
    reply:
      started.status === 'started'
        ? `Started ship unit ${unitId}: coding, review and checks until the pull request is ready.`
        : `Ship unit ${unitId} already exists; your message was sent to it as a steer.`,
  };
}

/** Why this person may not steer the running unit the request names, or undefined (no such unit, or theirs to steer). */
async function existingUnitRefusal(input: ShipUnitInput, person: Person, setup: AgentSetup): Promise<AdmissionRefusal | undefined> {
  const existing = await units.inspectUnit({ unitId: input.unitId }).catch(() => undefined);
  if (!existing || existing.outcome) return undefined;
  const subject = { kind: 'unit' as const, id: input.unitId, requester: existing.requester, agent: 'ship', repo: input.repo };
  const allowed = admitControl(setup, person, subject, 'steer');
  return allowed.ok ? undefined : allowed;
}
