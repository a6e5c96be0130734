import { isCancellation } from '@temporalio/workflow';
import type { PrepareUnitWorkspaceInput, UnitWorkspace } from '../contracts/unit-workspace';
import type { ResidentQueueActivities, UnitWorkspaceActivities } from '../activity-proxies';
import { hostGone } from './host-loss';

/** The `patched()` id of a resident checkout preferring a host that holds the repository's cache (docs/versioning.md). */
export const RESIDENT_PREFERS_CACHE_HOST = 'resident-checkout-prefers-cache-host';

type Prepare = Pick<UnitWorkspaceActivities, 'prepareUnitWorkspace'>;

export interface ResidentHostDeps {
  /** `prepareUnitWorkspace` on the shared queue: any live worker. */
  shared: Prepare;
  /** The queue of the hosts holding the repository's cache, when one polls it. */
  lookup: ResidentQueueActivities;
  /** `prepareUnitWorkspace` on a resident queue, with a schedule-to-start bound. */
  onQueue(queue: string): Prepare;
  patched(id: string): boolean;
}

/**
 * A resident checkout (a unit's, a direct run's) is prepared on a host that holds the
 * repository's object cache when one is there: its fetch then brings only what the cache lacks.
 * No such host, a failed look, or a host that does not pick the checkout up in time: the shared
 * queue, as before. Cold work never asks. The host that prepared the checkout is the one its
 * later calls go to, whichever queue reached it (UnitWorkspace.hostTaskQueue).
 */
export function preferCacheHost(deps: ResidentHostDeps): Prepare {
  return {
    async prepareUnitWorkspace(input: PrepareUnitWorkspaceInput): Promise<UnitWorkspace> {
      if (input.machine === 'repo-resident' && deps.patched(RESIDENT_PREFERS_CACHE_HOST)) {
        const queue = await deps.lookup.residentQueue({ repo: input.repo }).then(
          (found) => found.queue,
          (error: unknown) => {
            if (isCancellation(error)) throw error;
            return undefined;
          },
        );
        if (queue) {
          try {
            return await deps.onQueue(queue).prepareUnitWorkspace(input);
          } catch (error) {
            if (!hostGone(error)) throw error;
          }
        }
      }
      return deps.shared.prepareUnitWorkspace(input);
    },
  };
}
