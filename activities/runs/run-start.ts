import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { agentRunWorkflowType, runEndedSignal, type RunEnded, type RunInput, type RunRecord } from '../../workflows/contracts';
import { Agent, Repo, Requester, SwitchboardKind, Thread } from '../../workflows/search-attributes';
import type { RunOutcome, StartRunInput, StartRunResult } from '../../workflows/contracts/run-start';

export interface RunStartDeps {
  /**
   * The client runs are started with. For eager workflow start it must be on the worker's own
   * NativeConnection (the SDK hands the first workflow task to the worker sharing it) and carry
   * the deployment's data converter.
   */
  client: Client;
  /** Ask for eager workflow start (only a client on the worker's NativeConnection can). */
  eager: boolean;
}

/**
 * `startRun` (a local activity of the thread), `runOutcome` (an activity of its run watch) and
 * `reportRunEnd` (a local activity of the run).
 * A run id is started once per life of its thread: a running run is followed (`USE_EXISTING`: a
 * retried start after a lost answer, or a thread reset to before its start), and a closed one the
 * same thread started is never started again (its end is read and the thread takes it), so nothing
 * a run did is done twice. A closed run of the id from an earlier life of the thread (it was
 * cancelled or terminated, and a later message began it again at run 1) is replaced, as a child
 * start replaced it.
 */
export function createRunStartActivities(deps: RunStartDeps) {
  const outcome = async (runId: string): Promise<RunOutcome> => {
    const handle = deps.client.workflow.getHandle<typeof agentRunWorkflowType>(runId);
    let status: string;
    try {
      status = (await handle.describe()).status.name;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return { runId, failed: 'its workflow is gone (past the retention period)' };
      throw error;
    }
    if (status === 'RUNNING' || status === 'CONTINUED_AS_NEW') return { runId, open: true };
    if (status === 'TERMINATED') return { runId, terminated: true };
    if (status === 'COMPLETED') return { runId, record: await resultOf(handle) };
    if (status === 'FAILED') return { runId, failed: await failureOf(handle) };
    return { runId, failed: status === 'CANCELED' ? 'it was cancelled' : status === 'TIMED_OUT' ? 'it timed out' : status.toLowerCase() };
  };
  const start = (run: StartRunInput, reuse: 'REJECT_DUPLICATE' | 'ALLOW_DUPLICATE') =>
    deps.client.workflow.start(agentRunWorkflowType, {
      workflowId: run.runId,
      taskQueue: run.taskQueue,
      args: [run.input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: reuse,
      requestEagerStart: deps.eager,
      staticSummary: run.staticSummary,
      staticDetails: run.staticDetails,
      memo: { [THREAD_EXECUTION_MEMO]: run.threadExecution },
      // Findable by its thread from the start (the Web UI's `Thread = "…"`), even if its first task never completes.
      typedSearchAttributes: runAttributes(run.input),
    });

  return {
    async startRun(run: StartRunInput): Promise<StartRunResult> {
      const { runId } = run;
      try {
        return { runId, eager: (await start(run, 'REJECT_DUPLICATE')).eagerlyStarted };
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
      // Closed already: this thread's own run (adopted), or one of an earlier life of the thread (replaced).
      const memo = (await deps.client.workflow.getHandle(runId).describe()).memo ?? {};
      if (memo[THREAD_EXECUTION_MEMO] !== run.threadExecution)
        return { runId, eager: (await start(run, 'ALLOW_DUPLICATE')).eagerlyStarted };
      const ended = await outcome(runId);
      return ended.open ? { runId, eager: false } : { runId, ended };
    },
    async runOutcome(input: { runId: string }): Promise<RunOutcome> {
      return outcome(input.runId);
    },
    /**
     * A run telling its thread how it ended (a local activity of the run's last task): the signal
     * goes from this client straight to the thread, where a signal from workflow code would wait in
     * the server's transfer queue first, and the run completes in the same task. False when the
     * thread is gone (terminated): nobody is left to tell.
     */
    async reportRunEnd(input: { threadId: string; end: RunEnded }): Promise<boolean> {
      try {
        await deps.client.workflow.getHandle(input.threadId).signal(runEndedSignal, input.end);
        return true;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      }
    },
  };
}

/** The memo key naming the thread execution (its first run id) that started a run. */
export const THREAD_EXECUTION_MEMO = 'threadExecution';

function runAttributes(input: RunInput): SearchAttributePair[] {
  return [
    { key: SwitchboardKind, value: 'run' },
    { key: Thread, value: input.threadId },
    { key: Agent, value: input.profile.agent },
    { key: Requester, value: input.requester.id },
    ...(input.profile.repo ? [{ key: Repo, value: input.profile.repo.value }] : []),
  ];
}

async function resultOf(handle: WorkflowHandle): Promise<RunRecord> {
  return (await handle.result()) as RunRecord;
}

async function failureOf(handle: WorkflowHandle): Promise<string> {
  try {
    await handle.result();
    return 'it failed';
  } catch (error) {
    const cause = error instanceof WorkflowFailedError ? error.cause : error;
    return cause instanceof Error ? cause.message : String(cause);
  }
}
