import { TimeoutFailure, TimeoutType } from '@temporalio/common';

/** The timeout behind an activity failure, if a timeout is what ended it. */
export function timeoutOf(error: unknown): TimeoutFailure | undefined {
  for (let at = error as { cause?: unknown } | undefined, depth = 0; at && depth < 5; at = at.cause as typeof at, depth += 1) {
    if (at instanceof TimeoutFailure) return at;
  }
  return undefined;
}

/**
 * A call on a host's queue that no worker picked up within its schedule-to-start bound: the
 * host is gone (its worker polls that queue all the time while it lives). Temporal never
 * retries this timeout, so it is the final answer of the call.
 */
export function hostLostBy(timeout: TimeoutFailure): boolean {
  return timeout.timeoutType === TimeoutType.SCHEDULE_TO_START;
}

/** True when a call on a host's queue failed because the host is gone. */
export function hostGone(error: unknown): boolean {
  const timeout = timeoutOf(error);
  return Boolean(timeout && hostLostBy(timeout));
}
