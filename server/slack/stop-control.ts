import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { authorize, type AgentsConfig } from '../../agents';
import { loadCatalog } from '../../agents/custom-agents';
import { Agent, Requester } from '../../workflows/search-attributes';
import { threadStateQuery } from '../../workflows/contracts';

export interface StopAccessOptions {
  client: Client;
  agents: AgentsConfig;
  customAgentsDir?: string;
}

export type StopDecision = { ok: true; agent?: string } | { ok: false; message: string };

/**
 * Who may stop a run from Slack: the person who asked for it, or anyone the agents'
 * access rules let use that agent in this channel.
 */
export async function mayStopRun(options: StopAccessOptions, runId: string, userId: string, channelId?: string): Promise<StopDecision> {
  let description;
  try {
    description = await options.client.workflow.getHandle(runId).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return { ok: false, message: `There is no run ${runId}.` };
    throw error;
  }
  if (description.status.name !== 'RUNNING') return { ok: false, message: 'That run has already finished.' };
  const requester = description.typedSearchAttributes.get(Requester);
  const agent = description.typedSearchAttributes.get(Agent);
  if (requester === userId) return { ok: true, ...(agent ? { agent } : {}) };
  if (!agent) return { ok: false, message: 'Only the person who started this run may stop it.' };
  const { catalog } = loadCatalog(options.customAgentsDir);
  const allowed = authorize(catalog, options.agents, { surface: 'slack', userId, ...(channelId ? { channelId } : {}) }, agent);
  return allowed.ok ? { ok: true, agent } : { ok: false, message: `You may not stop this ${agent} run: ${allowed.message}` };
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
