import { TimeoutFailure, TimeoutType } from '@temporalio/common';
import type { PrepareUnitWorkspaceInput, UnitWorkspace } from '../contracts/unit-workspace';
import { preferCacheHost, RESIDENT_PREFERS_CACHE_HOST } from './resident-host';

const timedOut = (type: TimeoutType) =>
  Object.assign(new Error('activity timed out'), { cause: new TimeoutFailure('timeout', undefined, type) });
const input = (machine?: string): PrepareUnitWorkspaceInput => ({
  workspaceKey: 'unit:acme/app:s',
  repo: 'acme/app',
  branch: 'switchboard/s',
  identity: 'write',
  ...(machine ? { machine } : {}),
});

/** Fake queues: each prepares on itself (or fails as told); every call is logged. */
function fixture(options: { found?: string; lookupFails?: boolean; failing?: Record<string, Error>; patched?: boolean } = {}) {
  const calls: string[] = [];
  const on = (queue: string) => ({
    prepareUnitWorkspace: async (): Promise<UnitWorkspace> => {
      calls.push(`prepare@${queue}`);
      if (options.failing?.[queue]) throw options.failing[queue];
      return { path: '/workspace', headSha: 'a'.repeat(40), base: 'main', hostTaskQueue: `host-of-${queue}` };
    },
  });
  const patches: string[] = [];
  const prepare = preferCacheHost({
    shared: on('shared'),
    lookup: {
      residentQueue: async ({ repo }) => {
        calls.push(`lookup:${repo}`);
        if (options.lookupFails) throw new Error('describe failed');
        return options.found ? { queue: options.found } : {};
      },
    },
    onQueue: on,
    patched: (id) => {
      patches.push(id);
      return options.patched ?? true;
    },
  });
  return { calls, patches, prepare };
}

describe('a resident checkout prefers a host that holds the repository’s cache', () => {
  it('goes to the resident queue when one polls it', async () => {
    const { calls, prepare, patches } = fixture({ found: 'q@repo:acme/app' });
    expect(await prepare.prepareUnitWorkspace(input('repo-resident'))).toMatchObject({ hostTaskQueue: 'host-of-q@repo:acme/app' });
    expect(calls).toEqual(['lookup:acme/app', 'prepare@q@repo:acme/app']);
    expect(patches).toEqual([RESIDENT_PREFERS_CACHE_HOST]);
  });

  it('goes to the shared queue when none polls it, when the look fails, or when nobody picks it up in time', async () => {
    const none = fixture();
    await none.prepare.prepareUnitWorkspace(input('repo-resident'));
    expect(none.calls).toEqual(['lookup:acme/app', 'prepare@shared']);
    const failing = fixture({ lookupFails: true });
    await failing.prepare.prepareUnitWorkspace(input('repo-resident'));
    expect(failing.calls).toEqual(['lookup:acme/app', 'prepare@shared']);
    const gone = fixture({ found: 'q@repo:acme/app', failing: { 'q@repo:acme/app': timedOut(TimeoutType.SCHEDULE_TO_START) } });
    await gone.prepare.prepareUnitWorkspace(input('repo-resident'));
    expect(gone.calls).toEqual(['lookup:acme/app', 'prepare@q@repo:acme/app', 'prepare@shared']);
  });

  it('a checkout that failed on the cache’s host for another reason fails as it would anywhere', async () => {
    const broken = fixture({ found: 'q@repo:acme/app', failing: { 'q@repo:acme/app': new Error('git checkout failed') } });
    await expect(broken.prepare.prepareUnitWorkspace(input('repo-resident'))).rejects.toThrow('git checkout failed');
    expect(broken.calls).toEqual(['lookup:acme/app', 'prepare@q@repo:acme/app']);
  });

  it('cold work, and histories recorded before the patch, never ask', async () => {
    for (const machine of ['repo-cold', undefined]) {
      const cold = fixture({ found: 'q@repo:acme/app' });
      await cold.prepare.prepareUnitWorkspace(input(machine));
      expect(cold.calls).toEqual(['prepare@shared']);
      expect(cold.patches).toEqual([]);
    }
    const old = fixture({ found: 'q@repo:acme/app', patched: false });
    await old.prepare.prepareUnitWorkspace(input('repo-resident'));
    expect(old.calls).toEqual(['prepare@shared']);
  });
});
