import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { threadStateQuery } from '../../workflows/contracts';
import { type ControlAdmissionDoor } from '../control-admission';

export interface StopAccessOptions {
  client: Client;
  /** The one admission's steer/stop decision (server/control-admission.ts). */
  control: ControlAdmissionDoor;
}

export type StopDecision = { ok: true; agent?: string } | { ok: false; message: string; code?: string };

/**
 * Who may stop a run from Slack (the stop reaction, the Stop button): its requester, or an
 * operator (`admission.operators`), as everywhere (agents/admission.ts `admitControl`).
 */
export async function mayStopRun(options: StopAccessOptions, runId: string, userId: string, channelId?: string): Promise<StopDecision> {
  const decision = await options.control.decide({ surface: 'slack', userId, ...(channelId ? { channelId } : {}) }, runId, 'stop');
  if (!decision.ok && decision.code === 'not_found') return { ok: false, message: `There is no run ${runId}.` };
  if ('description' in decision && decision.description.status.name !== 'RUNNING')
    return { ok: false, message: 'That run has already finished.' };
  if (!decision.ok) return { ok: false, message: decision.message, code: decision.code };
  return { ok: true, ...(decision.subject.agent ? { agent: decision.subject.agent } : {}) };
}

/** The run a thread is running now, if the thread exists and has one. */
export async function currentRunOf(client: Client, threadId: string): Promise<string | undefined> {
  try {
    const state = await client.workflow.getHandle(threadId).query(threadStateQuery);
    return state.currentRunId;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}
