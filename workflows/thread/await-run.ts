import { CancellationScope, ChildWorkflowFailure, condition, patched, sleep, TerminatedFailure } from '@temporalio/workflow';
import type { RunOutcome } from '../contracts/run-start';
import { runProgress } from '../activity-proxies';
import type { RunRecord, ThreadInput } from '../contracts';
import { endedOf, type EndedRun, type RunEnds } from './run-ends';
import { watchForStuck, watchRun, type RunWatchDeps } from './run-watch';

/** Marks histories whose threads watch their current run and let a stuck one go (run-watch.ts). */
export const PATCH_WATCH_RUN = 'thread-watches-current-run';

/**
 * The run's record, or that it is stuck: a run whose workflow task keeps failing is let go
 * (the thread stops waiting; the run stays for an operator, see `runs list --stuck`) so the
 * thread answers and takes new messages again.
 */
export async function awaitRun(runId: string, result: Promise<RunRecord>, timing: ThreadInput['runWatch']): Promise<EndedRun> {
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

/**
 * The end of a run that tells its thread by `runEnded` (started eagerly, run-start.ts): the end it
 * told, or, when the run watch finds it closed without a word (terminated from Temporal, timed
 * out, or a run started as a child before a reset), its end read from Temporal; or that it is stuck.
 */
export async function awaitReportedRun(
  runId: string,
  ends: RunEnds,
  deps: ThreadInput['runWatch'] & Omit<RunWatchDeps, 'sleep'> & { outcome(runId: string): Promise<RunOutcome> },
): Promise<EndedRun> {
  const never = () => new Promise<never>(() => undefined);
  const scope = new CancellationScope();
  const reported = scope.run(() => condition(() => ends.has(runId))).then(() => ends.take(runId) ?? never(), never);
  const watched = scope
    .run(async (): Promise<EndedRun> => {
      for (;;) {
        const seen = await watchRun(runId, { ...deps, sleep }, { closedEnds: true });
        if (seen.stuck) return { stuck: seen.stuck };
        // Closed without a word (yet): the word may have come meanwhile; else Temporal says how it ended.
        // A reading that fails for good is made again at the next look: the thread never waits on it forever.
        const outcome = ends.has(runId) ? undefined : await deps.outcome(runId).catch(() => undefined);
        const told = ends.take(runId);
        if (told) return told;
        if (outcome && !outcome.open) return endedOf(outcome);
      }
    })
    .catch(never);
  try {
    return await Promise.race([reported, watched]);
  } finally {
    scope.cancel();
  }
}
