import type { RunRecord, StopInput, stopSignal } from '../contracts';
import type { UnitChildRun } from './unit';

/**
 * The `patched()` id of a unit whose child start finds a run of that id still running (an
 * earlier execution of the unit started it, and a reset made this one start it again): the
 * unit follows that run to its end and takes its record as the round's, instead of counting a
 * run that "ended without a record" and starting the next round beside it (docs/versioning.md).
 */
export const UNIT_FOLLOWS_RUNNING_CHILD = 'unit-follows-its-running-child';

/** How a unit reaches a run it did not start in its own history. */
export interface RunningRun {
  /** Waits for the run to end: its record, or why it has none. */
  awaitRun(runId: string): Promise<{ record?: RunRecord; ended?: string }>;
  /** Signals it (a stop), as an external workflow. */
  signal(runId: string, definition: typeof stopSignal, stop: StopInput): Promise<void>;
}

/**
 * Starts the child run, or, when a run with its id is already running, follows that run: its
 * record is the round's. Any other failure to start is the caller's, as before.
 */
export async function startOrFollow(
  runId: string,
  start: () => Promise<UnitChildRun>,
  running: RunningRun,
  patched: (id: string) => boolean,
): Promise<UnitChildRun> {
  try {
    return await start();
  } catch (error) {
    if (!alreadyRunning(error) || !patched(UNIT_FOLLOWS_RUNNING_CHILD)) throw error;
    return {
      async result() {
        const { record, ended } = await running.awaitRun(runId);
        if (!record) throw new Error(`${runId} ended without a record: ${ended ?? 'no reason given'}`);
        return record;
      },
      signal: (definition, stop) => running.signal(runId, definition, stop),
    };
  }
}

/** The SDK's WorkflowExecutionAlreadyStartedError, told by name (it crosses the workflow sandbox's realm). */
function alreadyRunning(error: unknown): boolean {
  return error instanceof Error && error.name === 'WorkflowExecutionAlreadyStartedError';
}
