import { type Client } from '@temporalio/client';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, SwitchboardKind } from '../../workflows/search-attributes';
import { visibilityQuery } from '../../infra/visibility';

/** One workflow of the demo's conversation, as the Web UI lists it. */
export interface FollowedWorkflow {
  workflowId: string;
  /** `thread`, `unit`, or `run`. */
  kind: string;
  /** For a run, the agent (`coding`, `review`). */
  agent?: string;
  startedAt: Date;
  /** Its page in the Temporal Web UI, when there is one. */
  link?: string;
}

/** The Web UI page of a workflow, and of a visibility query. */
export function webUiLinks(uiUrl: string, namespace: string) {
  const base = `${uiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}`;
  return {
    workflow: (workflowId: string) => `${base}/workflows/${encodeURIComponent(workflowId)}`,
    list: (query: string) => `${base}/workflows?query=${encodeURIComponent(query)}`,
  };
}

/**
 * Follows every workflow of one conversation through Temporal visibility (the thread, the
 * ship unit it started and the unit's runs all carry `Thread = <thread id>`), calling
 * `onNew` once for each as it appears. Visibility lags a second or so, which is fine for
 * printing links.
 */
export function followThread(options: {
  client: Client;
  namespace: string;
  threadId: string;
  uiUrl?: string;
  onNew(workflow: FollowedWorkflow): void;
  intervalMs?: number;
}): { seen: FollowedWorkflow[]; stop(): Promise<void> } {
  const seen: FollowedWorkflow[] = [];
  const links = options.uiUrl ? webUiLinks(options.uiUrl, options.namespace) : undefined;
  let stopped = false;
  const query = visibilityQuery({ Thread: options.threadId });
  const poll = async () => {
    const found: FollowedWorkflow[] = [];
    for await (const execution of options.client.workflow.list({ query })) {
      if (seen.some((workflow) => workflow.workflowId === execution.workflowId)) continue;
      const agent = execution.typedSearchAttributes.get(Agent);
      found.push({
        workflowId: execution.workflowId,
        kind: execution.typedSearchAttributes.get(SwitchboardKind) ?? execution.type,
        ...(agent ? { agent } : {}),
        startedAt: execution.startTime,
        ...(links ? { link: links.workflow(execution.workflowId) } : {}),
      });
    }
    for (const workflow of found.sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime())) {
      seen.push(workflow);
      options.onNew(workflow);
    }
  };
  const loop = (async () => {
    while (!stopped) {
      // A failed poll (Temporal restarting, shutting down) is simply tried again.
      await poll().catch(() => undefined);
      await delay(options.intervalMs ?? 1_000);
    }
  })();
  return {
    seen,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
