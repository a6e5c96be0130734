import type { RunEnded, RunOutcome, RunRecord } from '../contracts';
import { type StuckRun } from './run-watch';

/** How a run the thread waited for ended, as far as its answer goes. */
export interface EndedRun {
  record?: RunRecord;
  stuck?: StuckRun;
  terminated?: boolean;
  /** It failed without a record (its workflow raised, or it was cancelled or timed out), in words. */
  failed?: string;
}

/**
 * The end a run told its thread (`runEnded`), kept until the thread takes it. Only the current
 * run's end is kept: a late or repeated one (a reset run ending again) is of a run the thread has
 * moved past.
 */
export class RunEnds {
  private end?: RunEnded;

  constructor(private readonly current: () => string | undefined) {}

  receive(end: RunEnded): void {
    if (end.runId === this.current()) this.end = end;
  }

  has(runId: string): boolean {
    return this.end?.runId === runId;
  }

  /** The end of `runId` as the thread answers from it (once), or undefined before it came. */
  take(runId: string): EndedRun | undefined {
    const end = this.has(runId) ? this.end : undefined;
    if (!end) return undefined;
    this.end = undefined;
    return endedOf(end);
  }
}

/** What the thread answers from: the record, or that the run was terminated or failed without one. */
export function endedOf(end: Omit<RunEnded, 'runId'>): EndedRun {
  if (end.record) return { record: end.record };
  return end.terminated ? { terminated: true } : { failed: end.failed ?? 'it ended without a record' };
}

/** The outcome a saved exchange remembers: the record's, else stopped (terminated) or failed. */
export function savedOutcome(ended: EndedRun): RunOutcome {
  return ended.record?.outcome ?? (ended.terminated ? 'stopped' : 'failed');
}
