import { UNIT_PHASES, type PlanUnitState, type PlanUnitUpdate } from '../contracts';

/** A unit that enters one of these phases after it was ready is working again (not mergeable). */
const REWORK_PHASES: ReadonlySet<PlanUnitUpdate['status']> = new Set(['coding', 'review', 'findings', 'checks']);

/**
 * Takes a unit's `unitUpdate` into the plan's state: its PR, the phase it entered, what it spent,
 * ready (mergeable), a refused merge, settled (merged or not). Returns why the update is not this
 * plan's to take (an unknown key, another unit's id), for the input guard to drop and count.
 */
export function takeUnitUpdate(units: PlanUnitState[], merged: string[], update: PlanUnitUpdate): string | undefined {
  const unit = units.find((candidate) => candidate.key === update.key);
  if (!unit) return `\`key\` ${update.key} is not a unit of this plan (${units.map((u) => u.key).join(', ')})`;
  if (update.unitId !== unit.unitId) return `\`unitId\` ${update.unitId} is not the unit ${update.key} of this plan (${unit.unitId})`;
  if (update.pullRequest) unit.pullRequest = update.pullRequest;
  if (update.spentUsd !== undefined) unit.spentUsd = update.spentUsd;
  if ((UNIT_PHASES as readonly string[]).includes(update.status)) unit.phase = update.status;
  if (update.status === 'ready' && unit.status === 'running') unit.status = 'ready';
  else if (update.status === 'merge_refused' && unit.status === 'merging') unit.status = 'ready';
  else if (update.status === 'settled') {
    unit.outcome = update.outcome;
    unit.status = update.outcome === 'merged' ? 'merged' : 'settled';
    delete unit.phase;
    if (unit.status === 'merged' && !merged.includes(unit.key)) merged.push(unit.key);
  } else if (REWORK_PHASES.has(update.status) && unit.status === 'ready') unit.status = 'running';
  return undefined;
}
