import { CancellationScope } from '@temporalio/workflow';
import type { StopInput } from './contracts';

/** The stop a cancellation request (`temporal workflow cancel`, the Web UI, a client's `cancel()`) stands for. */
export const CANCEL_STOP: StopInput = { by: 'a cancellation request' };

/** Hands the workflow's stop handler to `cancelAsStop`; called once the handler exists. */
export type OnCancel = (stop: () => void) => void;

/**
 * Runs a workflow's body so that a cancellation request ends it the way a `stop` does. Left to
 * Temporal, a cancellation fails every timer, condition and activity of the workflow at once:
 * the cleanup that follows them (record, report, `Phase`/`Outcome`, workspace release) never
 * runs, and a loop that was not awaited rejects unhandled on every later task. So the body runs
 * shielded from it (a non-cancellable scope), and the cancellation calls the workflow's own
 * stop handler instead, which cancels what is in flight through the scopes it already owns
 * (a run's current activity, a unit's current run) and lets the workflow settle as stopped.
 * The workflow then completes with its record (status Completed, `Outcome` says stopped).
 *
 * Wrapping changes no command and no order, so recorded histories replay as before.
 */
export function cancelAsStop<T>(body: (onCancel: OnCancel) => Promise<T>): Promise<T> {
  let requested = false;
  let stop: (() => void) | undefined;
  // The handler runs in a scope of its own: in the cancelled root scope, the signals a stop
  // sends (to a thread's run, a unit's run, a plan's units) would be refused at once.
  const callStop = () => {
    if (stop) CancellationScope.nonCancellable(async () => stop!()).catch(() => undefined);
  };
  CancellationScope.current().cancelRequested.catch(() => {
    requested = true;
    callStop();
  });
  return CancellationScope.nonCancellable(() =>
    body((handler) => {
      stop = handler;
      if (requested) callStop();
    }),
  );
}
