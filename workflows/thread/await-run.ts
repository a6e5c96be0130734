import { CancellationScope, ChildWorkflowFailure, patched, sleep, TerminatedFailure } from '@temporalio/workflow';
import { runProgress } from '../activity-proxies';
import type { RunRecord, ThreadInput } from '../contracts';
import { stuckRunNotice, watchForStuck, type StuckRun } from './run-watch';

/** Marks histories whose threads watch their current run and let a stuck one go (run-watch.ts). */
export const PATCH_WATCH_RUN = 'thread-watches-current-run';

/**
 * The run's record, or that it is stuck: a run whose workflow task keeps failing is let go
 * (the thread stops waiting; the run stays for an operator, see `runs list --stuck`) so the
 * thread answers and takes new messages again.
 */
export async function awaitRun(
  runId: string,
  result: Promise<RunRecord>,
  timing: ThreadInput['runWatch'],
): Promise<{ record?: RunRecord; stuck?: StuckRun; terminated?: boolean }> {
  const finished = result.then(
    (record) => ({ record }),
    // Terminated by an operator (`temporal workflow terminate`, the Web UI) is said as such, not as a failure.
    (error: unknown) => (error instanceof ChildWorkflowFailure && error.cause instanceof TerminatedFailure ? { terminated: true } : {}),
  );
  if (!patched(PATCH_WATCH_RUN)) return finished;
  const watch = new CancellationScope();
  const deps = { ...timing, sleep, progress: (id: string) => runProgress.runProgress({ runId: id }) };
  const stuck = watch
    .run(() => watchForStuck(runId, deps))
    .then(
      (found) => ({ stuck: found }),
      () => new Promise<never>(() => undefined),
    );
  try {
    return await Promise.race([finished, stuck]);
  } finally {
    watch.cancel();
  }
}

/** What the thread answers for a run that ended (its final text, or how it ended), and its outcome for the saved context. */
export function endedAnswer(ended: Awaited<ReturnType<typeof awaitRun>>): { answer: string; outcome: RunRecord['outcome'] } {
  const { record } = ended;
  const answer = ended.stuck
    ? stuckRunNotice(ended.stuck)
    : record?.finalText ||
      (record
        ? `The run ended ${record.outcome}${record.endedBy ? ` (${record.endedBy})` : ''}.`
        : ended.terminated
          ? `The run was terminated (from Temporal, by an operator) before it produced an answer.`
          : 'The run failed before it produced an answer.');
  return { answer, outcome: record?.outcome ?? (ended.terminated ? 'stopped' : 'failed') };
}
