import type { RunProgress } from '../contracts/run-progress';

/** The first look at a run the thread waits for, then the interval between looks. */
export const RUN_WATCH_FIRST_MS = 60_000;
export const RUN_WATCH_EVERY_MS = 5 * 60_000;
/** Attempts of one pending workflow task that count as failing (as `switchboard runs list --stuck` counts). */
export const RUN_WATCH_STUCK_ATTEMPTS = 3;
/** Looks in a row that must find the run stuck before the thread lets it go (a bad deploy that is rolled back recovers). */
export const RUN_WATCH_STRIKES = 2;

export interface RunWatchDeps {
  sleep(ms: number): Promise<void>;
  /** Overrides RUN_WATCH_FIRST_MS and RUN_WATCH_EVERY_MS (ThreadInput.runWatch). */
  firstMs?: number;
  everyMs?: number;
  progress(runId: string): Promise<RunProgress>;
}

export interface StuckRun {
  runId: string;
  attempts: number;
}

/**
 * Watches the run a thread waits for and resolves when its workflow task has been failing
 * on `RUN_WATCH_STRIKES` looks in a row (a payload too large, a bug): Temporal retries such a
 * task forever and keeps the run `Running`, so without this the thread would wait forever and
 * answer nobody. Never resolves for a run that makes progress; the caller cancels it when the
 * run ends. A look that fails (Temporal busy) counts as neither stuck nor fine.
 */
export async function watchForStuck(runId: string, deps: RunWatchDeps): Promise<StuckRun> {
  return (await watchRun(runId, deps)).stuck!;
}

/**
 * `watchForStuck`, and with `closedEnds` also resolves on a look that finds the run closed: a run
 * that tells its thread its end by signal (started eagerly) may close without a word when it is
 * terminated from Temporal, and the watch is what notices.
 */
export async function watchRun(
  runId: string,
  deps: RunWatchDeps,
  options: { closedEnds?: boolean } = {},
): Promise<{ stuck?: StuckRun; closed?: true }> {
  let strikes = 0;
  let wait = deps.firstMs ?? RUN_WATCH_FIRST_MS;
  for (;;) {
    await deps.sleep(wait);
    wait = deps.everyMs ?? RUN_WATCH_EVERY_MS;
    const progress = await deps.progress(runId).catch(() => undefined);
    if (!progress) continue;
    if (!progress.open && options.closedEnds) return { closed: true };
    if (progress.open && progress.workflowTaskAttempts >= RUN_WATCH_STUCK_ATTEMPTS) strikes += 1;
    else strikes = 0;
    if (strikes >= RUN_WATCH_STRIKES) return { stuck: { runId, attempts: progress.workflowTaskAttempts } };
  }
}

/** What the person is told when their run is let go. */
export function stuckRunNotice(stuck: StuckRun): string {
  return (
    `Your run ${stuck.runId} is stuck: Temporal has tried its next step ${stuck.attempts} times and it fails every time ` +
    `(a bug or an oversized payload, not something you did). I've stopped waiting for it, so this thread takes new ` +
    `messages again; an operator can see it with \`switchboard runs list --stuck\`. Please ask again, or ask an operator to look.`
  );
}
