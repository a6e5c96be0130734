import type { UnitState } from '../contracts';
import { currentDetails } from '../details';

/**
 * A unit's "Current details" in the Web UI: its phase and round, the last review's verdict,
 * the checks, the next timer and when it fires, the PR and the run it is waiting for.
 */
export function unitDetails(state: UnitState, dropped?: string): string {
  const note = [
    state.pullRequest ? `PR #${state.pullRequest}` : 'no pull request yet',
    `branch \`${state.branch}\``,
    ...(state.currentRun ? [`waiting for run ${state.currentRun}`] : []),
    ...(state.outcome ? [`settled ${state.outcome}`] : []),
  ].join(' · ');
  return currentDetails({
    phase: state.phase,
    round: { current: state.round, of: state.maxRounds + 1 },
    ...(state.lastReview ? { lastVerdict: state.lastReview } : {}),
    ...(state.checks
      ? {
          checks: `${state.checks.state} on \`${state.checks.headSha.slice(0, 12)}\`${state.checks.detail ? ` (${state.checks.detail})` : ''}`,
        }
      : {}),
    ...(state.nextTimer ? { nextTimer: state.nextTimer } : {}),
    note,
    ...(dropped ? { dropped } : {}),
  });
}
