import { type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { createConversationWrites } from '../activities/github/conversation-writes';
import { type GitHubIdentities } from '../activities/github';
import { type EndedOwner } from '../activities/sandbox/janitor';
import { PullRequest, Repo, SwitchboardKind } from '../workflows/search-attributes';

/** How far back the janitor looks for threads and units that ended without ending themselves. */
const LOOKBACK_MS = 7 * 24 * 3_600_000;

/**
 * The threads and units terminated or timed out lately (Temporal visibility): they ran no code
 * to release their workspaces or to tell anyone. The janitor releases what of them is on its host.
 */
export function endedOwners(client: Client, now: () => number = Date.now): () => Promise<EndedOwner[]> {
  return async () => {
    const since = new Date(now() - LOOKBACK_MS).toISOString();
    const query =
      `(SwitchboardKind = "thread" OR SwitchboardKind = "unit") AND ` +
      `(ExecutionStatus = "Terminated" OR ExecutionStatus = "TimedOut") AND CloseTime > "${since}"`;
    const found: EndedOwner[] = [];
    for await (const execution of client.workflow.list({ query, pageSize: 100 })) {
      const kind = execution.typedSearchAttributes.get(SwitchboardKind);
      if (kind !== 'thread' && kind !== 'unit') continue;
      const repo = execution.typedSearchAttributes.get(Repo);
      const pullRequest = execution.typedSearchAttributes.get(PullRequest);
      found.push({
        workflowId: execution.workflowId,
        kind,
        runId: execution.runId,
        status: execution.status.name === 'TIMED_OUT' ? 'timedOut' : 'terminated',
        ...(repo ? { repo } : {}),
        ...(pullRequest ? { pullRequest: Number(pullRequest) } : {}),
      });
    }
    return found;
  };
}

/**
 * What a unit's pull request hears once the janitor released the checkout of a unit that was
 * terminated or timed out (it could say nothing itself): that no more work comes from it, why as
 * far as Temporal recorded it, and how to carry on. At most once per ended execution (an effect
 * key in the comment), with the write identity; a thread or a unit without a pull request is told
 * nothing (there is nowhere to say it but its conversation, which only its own code posts to).
 */
export function tellEndedUnit(deps: { client: Client; identities: GitHubIdentities }): (owner: EndedOwner) => Promise<void> {
  let writes: ReturnType<typeof createConversationWrites> | undefined;
  return async (owner) => {
    if (owner.kind !== 'unit' || !owner.repo || !owner.pullRequest || !(await deps.identities.tokenFor('write'))) return;
    const reason = await closingReason(deps.client, owner);
    const how = owner.status === 'timedOut' ? 'timed out' : `was terminated${reason ? ` (“${reason}”)` : ''}`;
    writes ??= createConversationWrites(deps.identities);
    await writes.postComment({
      repo: owner.repo,
      number: owner.pullRequest,
      effectKey: `${owner.workflowId}/ended/${owner.runId}`,
      attempt: 1,
      body:
        `Switchboard's ship unit \`${owner.workflowId}\` ${how}, so it does no more work on this pull request: ` +
        'no more rounds, reviews or reports from it, and its checkout on the worker was removed. ' +
        'The branch and this pull request are as it left them. To carry it on, ask `@switchboard agent:ship` here.',
    });
  };
}

/** The reason a terminate gave, from the execution's close event alone. */
async function closingReason(client: Client, owner: EndedOwner): Promise<string | undefined> {
  try {
    const { history } = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId: owner.workflowId, runId: owner.runId },
      historyEventFilterType: temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
    });
    const reason = history?.events?.[0]?.workflowExecutionTerminatedEventAttributes?.reason;
    // One line, and no one is mentioned by it.
    return reason ? reason.replace(/\s+/g, ' ').replace(/@/g, '@\u200b').slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}
