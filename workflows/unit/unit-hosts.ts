import type { UnitWorkspace } from '../contracts/unit-workspace';
import { hostGone } from '../run/host-loss';
import type { Unit } from './unit';

/** The `patched()` id of sending a unit's checkout calls to the host that holds the checkout (docs/versioning.md). */
export const UNIT_HOSTS_PATCH = 'unit-checkout-on-host-queue';

/** What the next coding run is told when the previous round's checkout was lost with its host. */
export const LOST_ROUND_NOTE =
  "The previous round's checkout was lost with the worker host that held it: its uncommitted and unpushed changes are gone. " +
  'This checkout was prepared again from the pushed branch; redo that work.';

/**
 * A unit's checkouts live on the host that prepared them (through the shared queue). The host's
 * queue is kept in the carry by workspace key; commits, pushes and releases go there, and a
 * host found gone (schedule-to-start timeout) costs the round: the next one prepares the
 * checkout again from the remote branch on a live host. Units from before the patch keep
 * everything on the shared queue.
 */
export function rememberHost(unit: Unit, workspaceKey: string, ws: UnitWorkspace): string | undefined {
  if (!ws.hostTaskQueue || !unit.activities.onHost || !unit.ports.patched(UNIT_HOSTS_PATCH)) return undefined;
  unit.carry.hosts = { ...unit.carry.hosts, [workspaceKey]: ws.hostTaskQueue };
  return ws.hostTaskQueue;
}

/** The round's work stays for the next round, with a note of what was lost. */
export function loseRound(unit: Unit, workspaceKey: string): undefined {
  const { carry } = unit;
  if (carry.hosts) delete carry.hosts[workspaceKey];
  if (!carry.work.some((item) => item.kind === 'steer' && item.text === LOST_ROUND_NOTE))
    carry.work.push({ kind: 'steer', text: LOST_ROUND_NOTE, by: 'switchboard' });
  return undefined;
}

/** Releases a checkout where it lives; a host that is gone has nothing left to release. */
export async function releaseCheckout(unit: Unit, key: string): Promise<void> {
  const workspace = { key, network: true };
  const queue = unit.carry.hosts?.[key];
  if (!queue || !unit.activities.onHost) {
    await unit.activities.workspace.releaseWorkspace({ workspace });
    return;
  }
  await unit.activities
    .onHost(queue)
    .unitWorkspace.releaseWorkspace({ workspace })
    .catch((error: unknown) => {
      if (!hostGone(error)) throw error;
    });
}

export { hostGone };
