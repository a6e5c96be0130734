import {
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  patched,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import {
  failure,
  mergeSignal,
  planStateQuery,
  resendUpdate,
  stopSignal,
  uncertainWritesQuery,
  unitUpdateSignal,
  type PlanInput,
  type PlanRecord,
  type PlanUnitState,
  type StopInput,
  type UncertainWrite,
} from './contracts';
import { UncertainWrites } from './effects/uncertain-writes';
import type { AgentSetup } from '../activities/agents/agent-setup';
import { failureReason } from './failure-reason';
import { planRefusal } from './plan/plan-admission';
import { planDetails } from './plan/plan-details';
import { PLAN_FAILURE_SETTLES, settleFailedPlan } from './plan/plan-failed';
import { planProblems } from './plan/plan-graph';
import { PlanProgress } from './plan/plan-progress';
import { PlanReports } from './plan/plan-report';
import { PLAN_UNIT_THREADS, PlanUnitStarter } from './plan/plan-start';
import { CANCEL_STOP, cancelAsStop, type OnCancel } from './cancel-as-stop';
import { githubWrites, setup, status as statusActivities, units as unitActivities } from './activity-proxies';
import { Outcome, Phase, Repo, Requester, SwitchboardKind } from './search-attributes';
import { InputGuard } from './input-guard';

/** The `patched()` id of a plan that lists its unconfirmed replies for `resend` (docs/versioning.md). */
export const PLAN_LISTS_UNCERTAIN_REPLIES = 'plan-lists-uncertain-replies';

/** The `patched()` id of a plan admitted for its requester before it starts a unit. Plans recorded before it started them unasked. */
export const PLAN_ADMITTED = 'plan-admitted';

/** How long a unit the spend caps could not fund waits before its start is tried again (a unit settling tries at once). */
export const FUNDING_RETRY_MS = 5 * 60_000;

/**
 * A seeded plan: a dependency graph of ship units, each started on its own id when its
 * dependencies allow, and — when the plan holds merge authority — merged in dependency order.
 */
export async function planWorkflow(input: PlanInput): Promise<PlanRecord> {
  return cancelAsStop((onCancel) => plan(input, onCancel));
}

async function plan(input: PlanInput, onCancel: OnCancel): Promise<PlanRecord> {
  const opened = await openPlan(input);
  if ('record' in opened) return opened.record;
  const p = new PlanProgress(input, input.mergeAuthority ?? opened.loaded.ship.planMergeAuthority);
  setHandler(planStateQuery, () => p.state());
  // The plan's replies (progress, the report) that end unconfirmed are listed, said once more, and
  // resent by `switchboard resend`; plans recorded before this listed nothing.
  const uncertainList: UncertainWrite[] = [];
  const uncertain = uncertainReplies(input, uncertainList);
  const replies = patched(PLAN_LISTS_UNCERTAIN_REPLIES) ? uncertain.recording().status : statusActivities;
  setHandler(uncertainWritesQuery, () => uncertainList);
  // Every message is checked whole first (contracts/inputs.ts); a malformed signal is dropped and counted.
  const guard = new InputGuard('planWorkflow', () => showDetails());
  const showDetails = () => setCurrentDetails(planDetails(p.state(), p.phase(), guard.note()));
  guard.signal(unitUpdateSignal, (update) => {
    const dropped = p.take(update);
    if (dropped) guard.drop(unitUpdateSignal.name, dropped);
  });
  const stopUnit = (unit: PlanUnitState) =>
    getExternalWorkflowHandle(unit.unitId)
      .signal(stopSignal, p.stopInput())
      .catch(() => undefined);
  const stopPlan = (stop: StopInput | undefined) => {
    for (const unit of p.stop(stop)) stopUnit(unit).catch(() => undefined);
  };
  guard.signal(stopSignal, stopPlan);
  guard.update(resendUpdate, (request) => uncertain.resend(request), {
    code: 'resend_refused',
    also: (request) => void uncertain.validate(request),
  });
  onCancel(() => stopPlan(CANCEL_STOP));
  upsertSearchAttributes([
    { key: SwitchboardKind, value: 'plan' },
    { key: Repo, value: input.repo },
    { key: Requester, value: input.requester.id },
    { key: Phase, value: 'running' },
  ]);

  // Units with conversations of their own, a card edited in place, starts that wait for money (plans recorded before: neither).
  const threads = patched(PLAN_UNIT_THREADS);
  const starter = new PlanUnitStarter(input, p.mergeAuthority, { status: statusActivities, units: unitActivities }, threads);
  const reports = new PlanReports(input, p, { status: statusActivities, replies }, threads);
  while (!p.done()) {
    showDetails();
    if (threads && p.unfunded()) p.waited(!(await condition(() => p.changed, FUNDING_RETRY_MS)));
    else await condition(() => p.changed);
    p.changed = false;
    if (p.stopped) {
      if (p.blockWaiting()) break;
      continue;
    }
    const retrying = p.beginStarts();
    for (const key of p.order) {
      const unit = p.startable(key, retrying);
      if (!unit) continue;
      if (threads && p.stopped) break;
      await starter.start(unit, p.spec(key));
      // A stop that came while the unit was starting could not reach it yet: it goes now.
      if (threads && p.stopped && unit.status === 'running') await stopUnit(unit);
      if (unit.status === 'settled') p.changed = true;
    }
    // Merge in dependency order: the first ready unit whose dependencies have all merged, one at a time.
    const next = p.nextMerge();
    if (next) await getExternalWorkflowHandle(next.unitId).signal(mergeSignal, { by: input.planId });
    await reports.report();
  }

  const outcome = p.outcome();
  upsertSearchAttributes([
    { key: Phase, value: 'settle' },
    { key: Outcome, value: outcome },
  ]);
  const finalReport = p.finalReport(outcome);
  setCurrentDetails(planDetails(p.state(), `settled ${outcome}`));
  await reports.settled(outcome, finalReport);
  // A resend in flight finishes (and is recorded) before the plan closes.
  await condition(allHandlersFinished);
  return { ...p.state(), outcome, report: finalReport, ...(uncertainList.length ? { unconfirmed: uncertainList } : {}) };
}

/**
 * A plan's start: its graph checked and its setup read, and its requester admitted for `ship`.
 * A plan that cannot start settles `failed` with a record (histories recorded before the patch
 * fail the workflow instead).
 */
async function openPlan(input: PlanInput): Promise<{ loaded: AgentSetup } | { record: PlanRecord }> {
  const problems = planProblems(input.units);
  if (problems.length > 0) {
    const invalid = failure('plan_invalid', `the plan is not sound: ${problems.join('; ')}`);
    if (!patched(PLAN_FAILURE_SETTLES)) throw invalid;
    return { record: await settleFailedPlan(input, invalid.message, statusActivities) };
  }
  let loaded: AgentSetup;
  try {
    loaded = await setup.loadAgentSetup();
  } catch (error) {
    if (!patched(PLAN_FAILURE_SETTLES)) throw error;
    return { record: await settleFailedPlan(input, failureReason(error), statusActivities) };
  }
  // A plan starts ship units for its requester: they must be admitted for `ship` (access, model, sandbox) before any starts.
  const refused = planRefusal(loaded, input);
  if (refused && patched(PLAN_ADMITTED))
    return { record: await settleFailedPlan(input, `${refused.message} (${refused.code})`, statusActivities) };
  return { loaded };
}

/** The plan's replies that end unconfirmed, listed in `list` for `resend` and said once more in its conversation. */
function uncertainReplies(input: PlanInput, list: UncertainWrite[]): UncertainWrites {
  return new UncertainWrites(
    list,
    { githubWrites, status: statusActivities },
    {
      now: () => Date.now(),
      workflowId: input.planId,
      notify: async (write, text) => {
        await statusActivities.deliverReply({ effectKey: `${write.effectKey}/notice`, replyTarget: input.replyTarget, text });
      },
    },
  );
}
