import type * as Proxies from '../activity-proxies';
import type { GitHubWriteActivities } from '../activity-proxies';
import type { DirectActivities } from './direct-work';
import { preferCacheHost } from './resident-host';
import type { WorkspaceHost } from './workspace-host';

/** The proxies a direct run's activities are made of (the workflow's; fakes in tests). */
export type DirectProxies = Pick<
  typeof Proxies,
  'setup' | 'githubUnitSteps' | 'hostBound' | 'unitWorkspace' | 'residentQueues' | 'residentBound'
>;

/**
 * A direct review or coding run's activities. The checkout is made on whichever host takes it
 * (a host holding the repository's cache first); the run's calls, the commit and the push follow
 * it there.
 */
export function directActivities(
  host: Pick<WorkspaceHost, 'queue' | 'adopt'>,
  proxies: DirectProxies,
  githubWrites: GitHubWriteActivities,
  patched: (id: string) => boolean,
): DirectActivities {
  const { setup, githubUnitSteps, hostBound, unitWorkspace, residentQueues, residentBound } = proxies;
  return {
    setup,
    github: {
      githubPullGet: (pull) => githubUnitSteps.githubPullGet(pull),
      pushBranch: (push) => (host.queue ? hostBound(host.queue).github : githubUnitSteps).pushBranch(push),
    },
    workspace: {
      prepareUnitWorkspace: async (prepare) => {
        const prepared = await preferCacheHost({
          shared: unitWorkspace,
          lookup: residentQueues,
          onQueue: residentBound,
          patched,
        }).prepareUnitWorkspace(prepare);
        host.adopt(prepared.hostTaskQueue);
        return prepared;
      },
      commitWorkspace: (commit) => (host.queue ? hostBound(host.queue).unitWorkspace : unitWorkspace).commitWorkspace(commit),
    },
    githubWrites,
  };
}
