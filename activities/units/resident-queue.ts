import { type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/**
 * The task queue every worker host that holds a repository's object cache polls beside its own
 * (infra/resident-queues.ts): resident work on that repository prefers it, so its checkout lands
 * where the cache is warm (docs/sandbox.md#warm-repositories).
 */
export function residentTaskQueue(taskQueue: string, repo: string): string {
  return `${taskQueue}@repo:${repo.toLowerCase()}`;
}

/** A poller seen this recently is a host still serving the queue. */
const LIVE_POLLER_MS = 90_000;

/**
 * `residentQueue`: the queue of the hosts holding the repository's cache, when one of them
 * polls it now (Temporal's own list of the queue's pollers); nothing otherwise, and the checkout
 * goes to the shared queue as before. Run as a local activity: a read, on the path to a first turn.
 */
export function createResidentQueueActivities(deps: { client: Client; taskQueue: string }) {
  return {
    async residentQueue(input: { repo: string }): Promise<{ queue?: string }> {
      const queue = residentTaskQueue(deps.taskQueue, input.repo);
      const described = await deps.client.workflowService.describeTaskQueue({
        namespace: deps.client.options.namespace,
        taskQueue: { name: queue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
      });
      const now = Date.now();
      const live = (described.pollers ?? []).some((poller) => {
        const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
        return now - seconds * 1_000 < LIVE_POLLER_MS;
      });
      return live ? { queue } : {};
    },
  };
}

export type ResidentQueueActivities = ReturnType<typeof createResidentQueueActivities>;
