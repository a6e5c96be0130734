import type { PlanState } from '../contracts';
import { currentDetails } from '../details';

/** A plan's "Current details" in the Web UI: each unit's status and PR, and what has merged. */
export function planDetails(state: PlanState, phase: string, dropped?: string): string {
  const units = state.units.map((unit) => `${unit.key} ${unit.status}${unit.pullRequest ? ` (#${unit.pullRequest})` : ''}`).join(', ');
  return currentDetails({
    phase,
    note: `${units}. Merged: ${state.merged.join(' -> ') || 'none'}${state.mergeAuthority ? '' : ' (no merge authority)'}.`,
    ...(dropped ? { dropped } : {}),
  });
}
