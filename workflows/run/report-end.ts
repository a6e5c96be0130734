import { CancellationScope, ContinueAsNew, TemporalFailure } from '@temporalio/workflow';
import { runEndReports } from '../activity-proxies';
import type { RunEnded, RunRecord } from '../contracts';

/**
 * Runs a run's body and tells its thread how it ended (`runEnded`), for a run its thread started
 * by a local activity rather than as a child (`RunInput.reportEnd`): its record, or that it failed.
 * Told by a local activity, whose signal reaches the thread straight from the worker's client and
 * lets the run complete in the same task (a signal sent from workflow code waits in the server's
 * transfer queue, and one sent in a workflow's last task is dropped with it); in a scope of its
 * own, so a cancelled run still tells. A thread that is gone (terminated) cannot be told, and a
 * telling that fails for good is found by the thread's run watch. A continue-as-new is not an
 * end: the next execution tells.
 */
export async function reportingEnd(threadId: string, runId: string, body: () => Promise<RunRecord>): Promise<RunRecord> {
  let record: RunRecord;
  try {
    record = await body();
  } catch (error) {
    // Only a Temporal failure ends the run; any other error (a bug) fails the workflow task, which
    // Temporal retries with the run still open: that is no end to tell (the run watch sees it stuck).
    if (error instanceof ContinueAsNew || !(error instanceof TemporalFailure)) throw error;
    await tell(threadId, { runId, failed: error.message });
    throw error;
  }
  await tell(threadId, { runId, record });
  return record;
}

async function tell(threadId: string, end: RunEnded): Promise<void> {
  await CancellationScope.nonCancellable(() => runEndReports.reportRunEnd({ threadId, end })).catch(() => undefined);
}
