import type { RunRecord, UnitOutcome } from '../contracts';
import { LOST_COMMAND } from '../run/executors/workspace';
import { WORKSPACE_LOST } from '../run/workspace-host';
import type { Unit } from './unit';

/** The `patched()` id of running a coding round again when its run lost its work (docs/versioning.md). */
export const RERUN_LOST_ROUNDS = 'coding-round-reruns-lost-work';

/** The `patched()` id of running a review again when its run ended without a result (docs/versioning.md). */
export const RERUN_LOST_REVIEWS = 'review-reruns-lost-run';

/** How many rounds and reviews a unit runs again in its lifetime before a lost round fails it as before. */
export const MAX_RERUN_ROUNDS = 3;

/** What the next coding run is told when the previous run's work was lost. */
export const LOST_WORK_NOTE =
  "The previous coding run of this unit lost its work before Switchboard could commit it (a command lost with its worker, or a run that failed or was cut short), so this round starts again from the pushed branch. Do the work again, and check each command's effect in the files rather than trusting a result you did not see.";

/** Why a run ended without its result: it failed, hit a bound, or left no record (a stop is a person's decision, never lost). */
export function lostRun(record: RunRecord | undefined, kind: 'coding' | 'review'): string | undefined {
  if (!record) return `the ${kind} run ended without a record`;
  if (record.outcome === 'stopped' || record.outcome === 'completed') return undefined;
  return `the ${kind} run ended ${record.outcome}${record.endedBy ? ` (${record.endedBy})` : ''}`;
}

/**
 * Why a coding run's round has lost work, in words; undefined when the run ended as it chose
 * (a completed run whose every command reported). A run that failed or hit a bound, and a
 * completed run with a shell command lost with its worker (its effect unknown, and the model may
 * have ended without redoing it) or a workspace lost with its host, are lost work. A stopped run
 * is a person's decision, never lost work.
 */
export function lostWork(record: RunRecord | undefined): string | undefined {
  if (!record || record.outcome !== 'completed') return lostRun(record, 'coding');
  const lost = (record.toolCalls ?? []).find(
    (call) => !call.ok && (call.error?.startsWith(LOST_COMMAND) || call.error?.startsWith(WORKSPACE_LOST)),
  );
  if (!lost) return undefined;
  return lost.error!.startsWith(WORKSPACE_LOST)
    ? `the coding run's workspace was lost with its worker host (turn ${lost.turn})`
    : `a ${lost.name} command of the coding run did not report a result: its worker was lost mid-command (turn ${lost.turn})`;
}

/**
 * A round whose run lost its work is run again (at most MAX_RERUN_ROUNDS times a unit): its work
 * items stay for the next round, with a note, and the round is kept in the unit's record. Returns
 * false when the unit may not (out of re-runs, or a history from before the patch): the caller
 * ends the round as it did before.
 */
export function rerunRound(unit: Unit, reason: string): boolean {
  const { carry } = unit;
  if ((carry.rerunRounds?.length ?? 0) >= MAX_RERUN_ROUNDS || !unit.ports.patched(RERUN_LOST_ROUNDS)) return false;
  carry.rerunRounds = [...(carry.rerunRounds ?? []), { round: carry.round, reason }];
  if (!carry.work.some((item) => item.kind === 'steer' && item.text === LOST_WORK_NOTE))
    carry.work.push({ kind: 'steer', text: LOST_WORK_NOTE, by: 'switchboard' });
  return true;
}

/**
 * A review run that ended without its result (failed, cut, no record) is run again without
 * using up the retry an invalid submission gets; it shares the unit's MAX_RERUN_ROUNDS and is
 * listed with `review: true`. False when the unit may not (out of re-runs, or an old history).
 */
export function rerunReview(unit: Unit, reason: string): boolean {
  const { carry } = unit;
  if ((carry.rerunRounds?.length ?? 0) >= MAX_RERUN_ROUNDS || !unit.ports.patched(RERUN_LOST_REVIEWS)) return false;
  carry.rerunRounds = [...(carry.rerunRounds ?? []), { round: carry.round, reason, review: true }];
  return true;
}

/** Rounds that were run again do not count against `ship.maxRounds` (a review run again is no round). */
export function roundsUsed(unit: Unit): number {
  return unit.carry.round - (unit.carry.rerunRounds ?? []).filter((rerun) => !rerun.review).length;
}

/** The end of a round that lost its work: run again, or fail with `failure` when the unit may not. */
export function lostRoundOr(unit: Unit, reason: string | undefined, failure: string): UnitOutcome | undefined {
  if (reason && rerunRound(unit, reason)) return undefined;
  return unit.failWith(failure);
}
