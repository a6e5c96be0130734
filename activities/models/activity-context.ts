import { Context } from '@temporalio/activity';

/** What a provider needs from the activity it runs in: a way to say "alive" and to hear "stop". */
export interface CallContext {
  heartbeat(): void;
  /** Aborted when Temporal cancels the activity; undefined outside an activity. */
  signal?: AbortSignal;
}

/**
 * The Temporal activity context when there is one. Providers are also called directly
 * (unit tests, the CLI's offline demo), where heartbeats go nowhere and nothing cancels.
 */
export function currentCallContext(): CallContext {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return { heartbeat: () => undefined };
  }
  return { heartbeat: () => context.heartbeat(), signal: context.cancellationSignal };
}

/**
 * Runs `work` while heartbeating every `intervalMs`, so a model call that takes minutes keeps
 * the activity's heartbeat timeout satisfied and lets a cancellation reach us (Temporal
 * delivers cancellation only to activities that heartbeat).
 */
export async function withHeartbeat<T>(call: CallContext, intervalMs: number, work: () => Promise<T>): Promise<T> {
  call.heartbeat();
  const timer = setInterval(() => call.heartbeat(), intervalMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** Throws the cancellation reason (Temporal's CancelledFailure) when the activity was cancelled. */
export function throwIfCancelled(call: CallContext): void {
  if (call.signal?.aborted) throw call.signal.reason ?? new Error('The model call was cancelled');
}
