import { CancellationScope, ContinueAsNew, getExternalWorkflowHandle } from '@temporalio/workflow';
import { runEndedSignal, type RunEnded, type RunRecord } from '../contracts';

/**
 * Runs a run's body and tells its thread how it ended (`runEnded`), for a run its thread started
 * by a local activity rather than as a child (`RunInput.reportEnd`): its record, or that it failed.
 * The signal is awaited before the run completes (a signal sent in a workflow's last task is
 * dropped with it), in a scope of its own so a cancelled run still sends it. A thread that is gone
 * (terminated) cannot be told; nothing else is lost by that. A continue-as-new is not an end: the
 * next execution tells.
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
  await CancellationScope.nonCancellable(() => getExternalWorkflowHandle(threadId).signal(runEndedSignal, end)).catch(() => undefined);
}
