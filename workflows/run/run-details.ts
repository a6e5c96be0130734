import { currentDetails } from '../details';
import type { RunState } from './run-state';

/**
 * A run's "Current details" in the Web UI: its phase, where it is against its turn guard, the
 * last tool, and the budget's deadline timer (the one timer a run always has).
 */
export function runDetails(state: RunState, dropped?: string): string {
  const { profile } = state.input;
  const parts = [`turn ${state.turns} of ${profile.turnGuard}`];
  if (state.lastTool) parts.push(`last tool \`${state.lastTool}\``);
  if (state.pendingSteers.length > 0) parts.push(`${state.pendingSteers.length} steer(s) pending`);
  if (state.statusText) parts.push(state.statusText);
  if (state.outcome) parts.push(`ended ${state.outcome}${state.endedBy ? ` (${state.endedBy})` : ''}`);
  return currentDetails({
    phase: state.phase,
    ...(state.finished ? {} : { nextTimer: { purpose: 'the budget ends', at: new Date(state.deadline).toISOString() } }),
    note: parts.join(' · '),
    ...(dropped ? { dropped } : {}),
  });
}
