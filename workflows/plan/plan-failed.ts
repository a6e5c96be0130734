import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { PlanInput, PlanRecord, PlanState } from '../contracts';
import type { StatusActivities } from '../activity-proxies';
import { Outcome, Phase, Repo, Requester, SwitchboardKind } from '../search-attributes';
import { planDetails } from './plan-details';

/**
 * The `patched()` id of a plan that cannot start (an unsound graph, its setup failing) settling
 * `failed` with a record and a report instead of failing the workflow (docs/versioning.md).
 * Histories recorded before it end in a raw workflow failure at the same point; the `false`
 * branch goes once no such closed history is replayed (queries, test/histories/plan/invalid-failed.json).
 */
export const PLAN_FAILURE_SETTLES = 'plan-failure-settles';

/** The unit id a plan gives one of its units (also what the plan starts it on). */
export function planUnitId(input: PlanInput, key: string): string {
  return `unit:${input.repo}:${input.planId.replace(/^plan:[^:]+:/, '')}-${key}`;
}

/**
 * A plan that failed before it started a unit: no unit runs (each is `blocked`), the plan is
 * listed with `Phase=settle`, `Outcome=failed`, and the reason is reported in the plan's
 * conversation and kept in its record. Nothing was prepared, so nothing needs releasing.
 */
export async function settleFailedPlan(
  input: PlanInput,
  reason: string,
  status: Pick<StatusActivities, 'deliverReply'>,
): Promise<PlanRecord> {
  const state: PlanState = {
    planId: input.planId,
    // Its setup may never have been read: only an explicit grant counts.
    mergeAuthority: input.mergeAuthority ?? false,
    units: input.units.map((unit) => ({
      key: unit.key,
      unitId: planUnitId(input, unit.key),
      status: 'blocked',
      dependsOn: unit.dependsOn ?? [],
    })),
    merged: [],
    done: true,
  };
  upsertSearchAttributes([
    { key: SwitchboardKind, value: 'plan' },
    { key: Repo, value: input.repo },
    { key: Requester, value: input.requester.id },
    { key: Phase, value: 'settle' },
    { key: Outcome, value: 'failed' },
  ]);
  setCurrentDetails(planDetails(state, 'settled failed'));
  const report = `Plan ${input.planId} failed: ${reason}. No unit was started.`;
  // The record is written even when the report cannot be delivered after its retries.
  await status.deliverReply({ effectKey: `${input.planId}/report`, replyTarget: input.replyTarget, text: report }).catch(() => undefined);
  return { ...state, outcome: 'failed', endedBy: reason, report };
}
