import { CancellationScope, ContinueAsNew } from '@temporalio/workflow';
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
    if (error instanceof ContinueAsNew) throw error;
    await tell(threadId, { runId, failed: error instanceof Error ? error.message : String(error) });
    throw error;
  }
  await tell(threadId, { runId, record });
  return record;
}

async function tell(threadId: string, end: RunEnded): Promise<void> {
  await CancellationScope.nonCancellable(() => runEndReports.reportRunEnd({ threadId, end })).catch(() => undefined);
}
