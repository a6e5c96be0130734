import { getExternalWorkflowHandle, ParentClosePolicy, startChild, workflowInfo } from '@temporalio/workflow';
import { runOutcomes, runProgress, runStarts } from '../activity-proxies';
import { agentRunWorkflowType, stopSignal, type RunInput, type StopInput, type ThreadInput } from '../contracts';
import { awaitReportedRun, awaitRun } from './await-run';
import { endedOf, type EndedRun, type RunEnds } from './run-ends';

/**
 * The `patched()` id of a thread starting its run by a local activity with eager workflow start,
 * the run telling the thread its end by signal (docs/versioning.md). Threads recorded before
 * started each run as their child and waited for its result.
 */
export const EAGER_RUN_START = 'thread-starts-run-eagerly';

/** A run the thread is about to start: its id, input and what the Web UI shows of it. */
export interface RunLaunch {
  runId: string;
  input: RunInput;
  staticSummary: string;
  staticDetails: string;
}

/** A started run, as the thread follows it. */
export interface StartedRun {
  /** Tells the run to stop (a stop that came while it was starting). */
  stop(stop: StopInput): Promise<void>;
  /** Its end: the record, or that it failed, was terminated or is stuck. */
  ended(): Promise<EndedRun>;
}

/**
 * Starts the thread's run. Eagerly (`eager`): a local activity starts it through the worker's own
 * client, and the worker gets the run's first workflow task back in the start's answer, with no
 * child-workflow hop (the server's transfer queue and a second poll) before the first model turn;
 * the run tells its end by `runEnded` and the run watch covers a run that never says (terminated).
 * Otherwise, as recorded before: a child the thread awaits.
 */
export async function startRun(
  launch: RunLaunch,
  options: { eager: boolean; ends: RunEnds; runWatch: ThreadInput['runWatch'] },
): Promise<StartedRun> {
  const { runId, staticSummary, staticDetails } = launch;
  if (!options.eager) {
    const handle = await startChild(agentRunWorkflowType, {
      workflowId: runId,
      args: [launch.input],
      // ABANDON: terminating the thread leaves its run running (answering nobody), as the eager path does.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      staticSummary,
      staticDetails,
    });
    return { stop: (stop) => handle.signal(stopSignal, stop), ended: () => awaitRun(runId, handle.result(), options.runWatch) };
  }
  const info = workflowInfo();
  const started = await runStarts.startRun({
    runId,
    taskQueue: info.taskQueue,
    input: { ...launch.input, reportEnd: 'thread' },
    threadExecution: info.firstExecutionRunId,
    staticSummary,
    staticDetails,
  });
  if ('ended' in started) return { stop: async () => undefined, ended: async () => endedOf(started.ended) };
  return {
    stop: (stop) => getExternalWorkflowHandle(runId).signal(stopSignal, stop),
    ended: () =>
      awaitReportedRun(runId, options.ends, {
        ...options.runWatch,
        progress: (id) => runProgress.runProgress({ runId: id }),
        outcome: (id) => runOutcomes.runOutcome({ runId: id }),
      }),
  };
}
