import type { UnitOutcome } from '../contracts';
import { stopWords } from '../run/run-control';
import { ChecksRound } from './checks-round';
import { CodingRound } from './coding-round';
import { IdleRound } from './idle-round';
import { ReviewRound } from './review-round';
import type { Unit } from './unit';

/** The `patched()` id of a unit that holds PR events until it has (re)opened its PR (docs/versioning.md). */
export const UNIT_HOLDS_PR_EVENTS = 'unit-holds-pr-events-until-its-pr';

/** Continue-as-new at a round boundary once history passes this many events (or Temporal suggests it). */
export const UNIT_HISTORY_LIMIT = 2_000;

/** What the workflow tells of its history (`workflowInfo()`). */
export interface HistoryInfo {
  continueAsNewSuggested: boolean;
  historyLength: number;
}

/** A phase of the unit's lifetime, run once per turn of its loop. */
export interface UnitRound {
  /** The unit's outcome when the round ends it; undefined to go on. */
  run(): Promise<UnitOutcome | undefined>;
}

/**
 * The decisions of the unit's main loop, one turn at a time: whether the unit has settled,
 * whether it holds its PR's events, whether the history starts afresh here, and which phase
 * runs next (coding -> review -> findings -> checks -> idle, as the carry says). The workflow
 * keeps the loop and its Temporal calls. Plain class: unit tests drive it without a server.
 */
export class UnitCourse {
  constructor(private readonly unit: Unit) {}

  /** Stopped, merged or closed: the unit's outcome and why are set, and the loop ends. */
  settled(): boolean {
    const { unit } = this;
    const { inbox } = unit;
    const settled = inbox.stopped ? 'stopped' : inbox.terminal?.outcome;
    if (!settled) return false;
    unit.endedBy ??= settled === 'stopped' ? stopWords(inbox.stopped!) : `the pull request was ${settled}`;
    unit.outcome = settled;
    return true;
  }

  /**
   * A unit without its PR yet holds PR events (a reset unit gets its own earlier ones first);
   * older histories did not. The patch is asked only when there are such events to hold.
   */
  holdsPullRequestEvents(): boolean {
    const { carry, inbox, ports } = this.unit;
    return !carry.pullRequest && inbox.hasPullRequestEvents() && ports.patched(UNIT_HOLDS_PR_EVENTS);
  }

  /** A round boundary with nothing waiting in the inbox, and a long history: it can start afresh here. */
  continuesAsNew(info: () => HistoryInfo): boolean {
    const { carry, inbox } = this.unit;
    if (carry.phase !== 'coding' && carry.phase !== 'findings') return false;
    return carry.round > 0 && inbox.quiet() && (info().continueAsNewSuggested || info().historyLength > UNIT_HISTORY_LIMIT / 4);
  }

  /** The phase that runs next: findings are answered by a coding round. */
  round(): UnitRound {
    const { unit } = this;
    const { phase } = unit.carry;
    if (phase === 'coding' || phase === 'findings') return new CodingRound(unit);
    if (phase === 'review') return new ReviewRound(unit);
    if (phase === 'checks') return new ChecksRound(unit);
    return new IdleRound(unit);
  }

  /** A round's end: true when it settled the unit (its outcome is set). */
  ended(next: UnitOutcome | undefined): boolean {
    if (!next) return false;
    this.unit.outcome = next;
    return true;
  }

  /** A phase that fails anyway (an activity's non-retryable failure, a bug) still settles: `failed`, with the reason. */
  failed(reason: string): void {
    this.unit.outcome = this.unit.failWith(reason);
  }
}
