import { usdText } from '../../agents/spend-caps';
import type { PlanState, PlanUnitState } from '../contracts';

/**
 * A plan's card in its conversation (edited in place as the plan goes): each unit with its state
 * (the phase it is in while it runs), its pull request, what it waits for, and what it spent; the
 * plan's state, its merge authority, and what its units spent together. Plain text with code
 * spans, which Slack and GitHub both render.
 */
export function planCard(state: PlanState, phase: string): string {
  const spent = state.units.reduce((total, unit) => total + (unit.spentUsd ?? 0), 0);
  return [
    `Plan \`${state.planId}\`: ${phase}${state.mergeAuthority ? ' (it merges its units in dependency order)' : ' (people merge its units)'}`,
    ...state.units.map((unit) => `• ${unitLine(unit, state.units)}`),
    `Spent ${usdText(Math.round(spent * 1_000_000) / 1_000_000)} · merged: ${state.merged.join(' → ') || 'none yet'}`,
  ].join('\n');
}

function unitLine(unit: PlanUnitState, all: PlanUnitState[]): string {
  const state =
    unit.status === 'running' && unit.phase ? unit.phase : unit.status === 'settled' ? `settled ${unit.outcome ?? ''}`.trim() : unit.status;
  const waitsFor =
    unit.status === 'waiting' ? unit.dependsOn.filter((key) => all.find((other) => other.key === key)?.status !== 'merged') : [];
  return [
    `\`${unit.key}\` ${state}${unit.note ? `: ${unit.note}` : ''}`,
    ...(unit.pullRequest ? [`PR #${unit.pullRequest}`] : []),
    ...(unit.dependsOn.length ? [`after ${unit.dependsOn.join(', ')}${waitsFor.length && !unit.note ? ' (waiting)' : ''}`] : []),
    ...(unit.spentUsd ? [usdText(unit.spentUsd)] : []),
  ].join(' · ');
}

/** The root message of a unit's own thread (in Slack): what it does, for which plan, and that replies reach it. */
export function unitThreadText(planId: string, unit: Pick<PlanUnitState, 'key' | 'unitId' | 'dependsOn'>, request: string): string {
  return [
    `Unit \`${unit.key}\` of plan \`${planId}\` (${unit.unitId})${unit.dependsOn.length ? `, after ${unit.dependsOn.join(', ')}` : ''}:`,
    `> ${request.replace(/\s+/g, ' ').trim().slice(0, 500)}`,
    'It reports in this thread. A reply here steers this unit; `stop` stops it.',
  ].join('\n');
}
