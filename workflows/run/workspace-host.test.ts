import { TimeoutFailure, TimeoutType } from '@temporalio/common';
import type { BashInput, BashResult } from '../contracts/sandbox';
import { WorkspaceHost, type HostedActivities } from './workspace-host';

const workspace = { key: 'thread:t', network: false };
const bashResult = (output: string): BashResult => ({ exitCode: 0, output, truncated: false, timedOut: false, durationMs: 1 });
const timedOut = (type: TimeoutType) =>
  Object.assign(new Error('activity timed out'), { cause: new TimeoutFailure('timeout', undefined, type) });

/** Fake hosts: each queue answers bash with its name, or fails as told; every call is logged. */
function fixture(options: { prepared?: string[]; failing?: Record<string, Error>; probeFails?: boolean } = {}) {
  const calls: string[] = [];
  const prepared = [...(options.prepared ?? ['q@a', 'q@b'])];
  const activities = (queue: string): HostedActivities => ({
    shell: {
      bash: async (input: BashInput) => {
        calls.push(`bash@${queue}:${input.command}`);
        const failing = options.failing?.[queue];
        if (failing) throw failing;
        return bashResult(queue);
      },
    },
    files: {} as HostedActivities['files'],
    skills: {} as HostedActivities['skills'],
    attach: {} as HostedActivities['attach'],
    mcp: {} as HostedActivities['mcp'],
    workspaces: {
      closeWorkspace: async () => {
        calls.push(`close@${queue}`);
        return {};
      },
    },
  });
  const deps = {
    workspace,
    routed: true,
    shared: activities('shared'),
    prepare: {
      prepareWorkspace: async () => {
        calls.push('prepare@shared');
        const next = prepared.shift();
        return { root: '/w', isolation: 'none' as const, ...(next ? { hostTaskQueue: next } : {}) };
      },
    },
    onHost: (queue: string) => ({
      ...activities(queue),
      probe: {
        prepareWorkspace: async () => {
          calls.push(`probe@${queue}`);
          if (options.probeFails) throw timedOut(TimeoutType.SCHEDULE_TO_START);
          return { root: '/w', isolation: 'none' as const, hostTaskQueue: queue };
        },
      },
    }),
  };
  return { calls, deps };
}

describe('WorkspaceHost', () => {
  it('prepares through the shared queue once, then sends every call to that host', async () => {
    const { calls, deps } = fixture();
    const host = new WorkspaceHost(deps);
    await Promise.all([host.activities.shell.bash({ workspace, command: 'a' }), host.activities.shell.bash({ workspace, command: 'b' })]);
    await host.close();
    expect(calls).toEqual(['prepare@shared', 'bash@q@a:a', 'bash@q@a:b', 'close@q@a']);
    expect(host.queue).toBe('q@a');
  });

  it("adopts the host of a checkout another activity made in the run's workspace (a direct run), without preparing again", async () => {
    const { calls, deps } = fixture();
    const host = new WorkspaceHost(deps);
    host.adopt('q@b');
    host.adopt('q@a'); // the first host stays: the files are there
    await host.activities.shell.bash({ workspace, command: 'a' });
    expect(calls).toEqual(['bash@q@b:a']);

    // A history from before host queues keeps every call on the shared queue.
    const unrouted = fixture();
    const old = new WorkspaceHost({ ...unrouted.deps, routed: false });
    old.adopt('q@b');
    await old.activities.shell.bash({ workspace, command: 'a' });
    expect(old.queue).toBeUndefined();
    expect(unrouted.calls).toEqual(['bash@shared:a']);
  });

  it('a host that does not pick the call up is gone: a fresh workspace elsewhere, and the call says what was lost', async () => {
    const { calls, deps } = fixture({ failing: { 'q@a': timedOut(TimeoutType.SCHEDULE_TO_START) } });
    const host = new WorkspaceHost(deps);
    await expect(host.activities.shell.bash({ workspace, command: 'a' })).rejects.toMatchObject({
      type: 'workspace_lost',
      message: expect.stringContaining('Your workspace was lost'),
    });
    expect(host.notice).toContain('every job still running there');
    await expect(host.activities.shell.bash({ workspace, command: 'b' })).resolves.toMatchObject({ output: 'q@b' });
    expect(calls).toEqual(['prepare@shared', 'bash@q@a:a', 'prepare@shared', 'bash@q@b:b']);
    expect(host.losses).toBe(1);
  });

  it('a lost heartbeat is a loss only when the host does not answer a probe (a worker restarted on the same disk does)', async () => {
    const alive = fixture({ failing: { 'q@a': timedOut(TimeoutType.HEARTBEAT) } });
    const kept = new WorkspaceHost(alive.deps);
    await expect(kept.activities.shell.bash({ workspace, command: 'a' })).rejects.toThrow('activity timed out');
    expect(kept.losses).toBe(0);
    expect(alive.calls).toEqual(['prepare@shared', 'bash@q@a:a', 'probe@q@a']);

    const dead = fixture({ failing: { 'q@a': timedOut(TimeoutType.HEARTBEAT) }, probeFails: true });
    const lost = new WorkspaceHost(dead.deps);
    await expect(lost.activities.shell.bash({ workspace, command: 'a' })).rejects.toMatchObject({ type: 'workspace_lost' });
    expect(lost.queue).toBe('q@b');
  });

  it('other failures are the call’s own; a known host is used without preparing; old histories stay on the shared queue', async () => {
    const failing = fixture({ failing: { 'q@z': new Error('boom') } });
    const known = new WorkspaceHost({ ...failing.deps, hostQueue: 'q@z' });
    await expect(known.activities.shell.bash({ workspace, command: 'a' })).rejects.toThrow('boom');
    expect(failing.calls).toEqual(['bash@q@z:a']);

    const old = fixture();
    const unrouted = new WorkspaceHost({ ...old.deps, routed: false });
    await unrouted.activities.shell.bash({ workspace, command: 'a' });
    await unrouted.close();
    expect(old.calls).toEqual(['bash@shared:a', 'close@shared']);
  });

  it('a worker without a host queue (or no sandbox) keeps the calls on the shared queue', async () => {
    const { calls, deps } = fixture({ prepared: [] });
    const host = new WorkspaceHost(deps);
    await host.activities.shell.bash({ workspace, command: 'a' });
    await host.activities.shell.bash({ workspace, command: 'b' });
    expect(calls).toEqual(['prepare@shared', 'bash@shared:a', 'bash@shared:b']);
  });
});
