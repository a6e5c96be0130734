import { currentCallContext, withHeartbeat } from './models/activity-context';

/** How often a wrapped activity says "alive"; its policy's heartbeat timeout is a few of these. */
export const ACTIVITY_HEARTBEAT_MS = 2_000;

type AnyActivity = (...args: never[]) => Promise<unknown>;

/**
 * Wraps each activity so it heartbeats while it runs. A worker that dies mid-call stops the
 * beats, and Temporal retries the attempt at the policy's heartbeat timeout (seconds) instead
 * of its start-to-close timeout (minutes). Only for activities that keep no heartbeat details
 * of their own (a detail-less beat would overwrite them).
 */
export function heartbeating<T extends Record<string, AnyActivity>>(activities: T, intervalMs = ACTIVITY_HEARTBEAT_MS): T {
  const wrapped: Record<string, AnyActivity> = {};
  for (const [name, activity] of Object.entries(activities)) {
    wrapped[name] = (...args: never[]) => withHeartbeat(currentCallContext(), intervalMs, () => activity(...args));
  }
  return wrapped as T;
}
