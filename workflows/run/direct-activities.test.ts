import type { GitHubWriteActivities } from '../activity-proxies';
import { CallLog } from '../test-support';
import { directActivities, type DirectProxies } from './direct-activities';
import { RESIDENT_PREFERS_CACHE_HOST } from './resident-host';

/** A host as WorkspaceHost keeps it: no queue until a checkout's host is adopted. */
class Host {
  queue?: string;
  adopt(queue: string | undefined): void {
    if (!this.queue && queue) this.queue = queue;
  }
}

function setup(options: { cacheHost?: string; marker?: boolean } = {}) {
  const log = new CallLog();
  const host = new Host();
  const proxies = {
    setup: { loadAgentSetup: log.fn('loadAgentSetup', () => ({})) },
    githubUnitSteps: { githubPullGet: log.fn('githubPullGet', () => ({})), pushBranch: log.fn('pushBranch', () => ({})) },
    hostBound: (queue: string) => ({
      github: { pushBranch: log.fn(`pushBranch@${queue}`, () => ({})) },
      unitWorkspace: { commitWorkspace: log.fn(`commitWorkspace@${queue}`, () => ({})) },
    }),
    unitWorkspace: {
      prepareUnitWorkspace: log.fn('prepareUnitWorkspace', () => ({ hostTaskQueue: 'host-a' })),
      commitWorkspace: log.fn('commitWorkspace', () => ({})),
    },
    residentQueues: { residentQueue: log.fn('residentQueue', () => ({ queue: options.cacheHost })) },
    residentBound: (queue: string) => ({ prepareUnitWorkspace: log.fn(`prepareUnitWorkspace@${queue}`, () => ({ hostTaskQueue: queue })) }),
  } as unknown as DirectProxies;
  const asked: string[] = [];
  const activities = directActivities(host, proxies, {} as GitHubWriteActivities, (id) => {
    asked.push(id);
    return options.marker ?? true;
  });
  return { log, host, asked, activities };
}

const prepare = { repo: 'acme/app', machine: 'repo-resident' } as never;

describe("a direct run's activities", () => {
  it('commit and push on the shared queue until the checkout is made, then follow it to its host', async () => {
    const { log, host, activities } = setup();
    await activities.github.pushBranch({} as never);
    await activities.workspace.prepareUnitWorkspace(prepare);
    expect(host.queue).toBe('host-a');
    await activities.workspace.commitWorkspace({} as never);
    await activities.github.pushBranch({} as never);
    expect(log.names()).toEqual(['pushBranch', 'residentQueue', 'prepareUnitWorkspace', 'commitWorkspace@host-a', 'pushBranch@host-a']);
  });

  it("make a resident checkout on a host holding the repository's cache when one is there", async () => {
    const { log, host, asked, activities } = setup({ cacheHost: 'resident-b' });
    await activities.workspace.prepareUnitWorkspace(prepare);
    expect(asked).toEqual([RESIDENT_PREFERS_CACHE_HOST]);
    expect(log.names()).toEqual(['residentQueue', 'prepareUnitWorkspace@resident-b']);
    expect(host.queue).toBe('resident-b');
  });
});
