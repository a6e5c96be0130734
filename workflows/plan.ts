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
  type PlanState,
  type PlanUnitState,
  type StopInput,
  type UncertainWrite,
} from './contracts';
import { UncertainWrites } from './effects/uncertain-writes';
import type { AgentSetup } from '../activities/agents/agent-setup';
import { admitStart } from '../agents';
import { failureReason } from './failure-reason';
import { planDetails } from './plan/plan-details';
import { PLAN_FAILURE_SETTLES, planUnitId, settleFailedPlan } from './plan/plan-failed';
import { isBlocked, mayStart, planProblems, topologicalOrder } from './plan/plan-graph';
import { planCard } from './plan/plan-card';
import { NOT_FUNDED, PLAN_UNIT_THREADS, PlanUnitStarter } from './plan/plan-start';
import { takeUnitUpdate } from './plan/plan-updates';
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

/** Why the plan's requester may not have its units started (agents/admission.ts), or undefined. */
function planRefusal(loaded: AgentSetup, input: PlanInput) {
  const { id, surface, selfServe, grant, githubRole } = input.requester;
  const person = {
    surface,
    userId: id,
    ...(selfServe ? { selfServe } : {}),
    ...(grant ? { grant } : {}),
    ...(githubRole ? { githubRole } : {}),
  };
  const allowed = admitStart(loaded, { person, agent: 'ship', repo: input.repo, ...(input.model ? { model: input.model } : {}) });
  return allowed.ok ? undefined : allowed;
}

/**
 * A seeded plan: a dependency graph of ship units, each started on its own id when its
 * dependencies allow, and — when the plan holds merge authority — merged in dependency order.
 */
export async function planWorkflow(input: PlanInput): Promise<PlanRecord> {
  return cancelAsStop((onCancel) => plan(input, onCancel));
}

async function plan(input: PlanInput, onCancel: OnCancel): Promise<PlanRecord> {
  const problems = planProblems(input.units);
  if (problems.length > 0) {
    const invalid = failure('plan_invalid', `the plan is not sound: ${problems.join('; ')}`);
    if (!patched(PLAN_FAILURE_SETTLES)) throw invalid;
    return settleFailedPlan(input, invalid.message, statusActivities);
  }
  let loaded: AgentSetup;
  try {
    loaded = await setup.loadAgentSetup();
  } catch (error) {
    if (!patched(PLAN_FAILURE_SETTLES)) throw error;
    return settleFailedPlan(input, failureReason(error), statusActivities);
  }
  const { ship } = loaded;
  // A plan starts ship units for its requester: they must be admitted for `ship` (access, model, sandbox) before any starts.
  const refused = planRefusal(loaded, input);
  if (refused && patched(PLAN_ADMITTED)) return settleFailedPlan(input, `${refused.message} (${refused.code})`, statusActivities);
  const mergeAuthority = input.mergeAuthority ?? ship.planMergeAuthority;
  const units: PlanUnitState[] = input.units.map((unit) => ({
    key: unit.key,
    unitId: planUnitId(input, unit.key),
    status: 'waiting',
    dependsOn: unit.dependsOn ?? [],
  }));
  const order = topologicalOrder(input.units);
  const merged: string[] = [];
  let stopped: StopInput | undefined;
  let changed = true;
  let lastCard: string | undefined;

  const state = (): PlanState => ({ planId: input.planId, mergeAuthority, units, merged, done: units.every(settled) });
  setHandler(planStateQuery, state);
  // The plan's replies (progress, the report) that end unconfirmed are listed, said once more, and
  // resent by `switchboard resend`; plans recorded before this listed nothing.
  const uncertainList: UncertainWrite[] = [];
  const uncertain = new UncertainWrites(
    uncertainList,
    { githubWrites, status: statusActivities },
    {
      now: () => Date.now(),
      workflowId: input.planId,
      notify: async (write, text) => {
        await statusActivities.deliverReply({ effectKey: `${write.effectKey}/notice`, replyTarget: input.replyTarget, text });
      },
    },
  );
  const replies = patched(PLAN_LISTS_UNCERTAIN_REPLIES) ? uncertain.recording().status : statusActivities;
  setHandler(uncertainWritesQuery, () => uncertainList);
  // Every message is checked whole first (contracts/inputs.ts); a malformed signal is dropped and counted.
  const guard = new InputGuard('planWorkflow', () => showDetails());
  const showDetails = () => setCurrentDetails(planDetails(state(), stopped ? 'stopping' : 'running', guard.note()));
  // Money a unit's settling released may fund a waiting unit: its start is tried again then (or after a while).
  let fundingWanted = false;
  guard.signal(unitUpdateSignal, (update) => {
    const dropped = takeUnitUpdate(units, merged, update);
    if (dropped) return guard.drop(unitUpdateSignal.name, dropped);
    if (update.status === 'settled') fundingWanted = true;
    changed = true;
  });
  const stopUnit = (unit: PlanUnitState) =>
    getExternalWorkflowHandle(unit.unitId)
      .signal(stopSignal, { reason: 'the plan was stopped', ...(stopped?.by ? { by: stopped.by } : {}) })
      .catch(() => undefined);
  const stopPlan = (stop: StopInput | undefined) => {
    stopped ??= stop ?? {};
    for (const unit of units) if (unit.status !== 'waiting' && !settled(unit)) stopUnit(unit).catch(() => undefined);
    changed = true;
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
  const starter = new PlanUnitStarter(input, mergeAuthority, { status: statusActivities, units: unitActivities }, threads);
  const unfunded = () => units.some((unit) => unit.status === 'waiting' && unit.note?.startsWith(NOT_FUNDED));
  while (!units.every(settled)) {
    showDetails();
    if (threads && unfunded()) fundingWanted = !(await condition(() => changed, FUNDING_RETRY_MS)) || fundingWanted;
    else await condition(() => changed);
    changed = false;
    if (stopped) {
      for (const unit of units) if (unit.status === 'waiting') unit.status = 'blocked';
      if (units.every((unit) => unit.status !== 'running' && unit.status !== 'ready' && unit.status !== 'merging')) break;
      continue;
    }
    for (const unit of units) if (isBlocked(unit, units)) unit.status = 'blocked';
    const retrying = fundingWanted;
    fundingWanted = false;
    for (const key of order) {
      const unit = units.find((candidate) => candidate.key === key)!;
      if (!mayStart(unit, units, mergeAuthority) || (unit.note?.startsWith(NOT_FUNDED) && !retrying)) continue;
      if (threads && stopped) break;
      await starter.start(
        unit,
        input.units.find((candidate) => candidate.key === key)!,
      );
      // A stop that came while the unit was starting could not reach it yet: it goes now.
      if (threads && stopped && unit.status === 'running') await stopUnit(unit);
      if (unit.status === 'settled') changed = true;
    }
    // Merge in dependency order: the first ready unit whose dependencies have all merged, one at a time.
    if (mergeAuthority && !units.some((unit) => unit.status === 'merging')) {
      const next = order
        .map((key) => units.find((unit) => unit.key === key)!)
        .find((unit) => unit.status === 'ready' && unit.dependsOn.every((key) => merged.includes(key)));
      if (next) {
        next.status = 'merging';
        await getExternalWorkflowHandle(next.unitId).signal(mergeSignal, { by: input.planId });
      }
    }
    await report(threads);
  }

  const outcome: PlanRecord['outcome'] = stopped
    ? 'stopped'
    : units.every((unit) => unit.status === 'merged' || (!mergeAuthority && unit.outcome !== undefined))
      ? 'completed'
      : 'blocked';
  upsertSearchAttributes([
    { key: Phase, value: 'settle' },
    { key: Outcome, value: outcome },
  ]);
  const finalReport = `Plan ${input.planId} ${outcome}. Merged in order: ${merged.join(' -> ') || 'none'}.`;
  setCurrentDetails(planDetails(state(), `settled ${outcome}`));
  if (threads)
    await statusActivities
      .planCard({
        planId: input.planId,
        effectKey: `${input.planId}/card`,
        replyTarget: input.replyTarget,
        text: planCard(state(), outcome),
      })
      .catch(() => undefined);
  await replies.deliverReply({ effectKey: `${input.planId}/report`, replyTarget: input.replyTarget, text: finalReport });
  // A resend in flight finishes (and is recorded) before the plan closes.
  await condition(allHandlersFinished);
  return { ...state(), outcome, report: finalReport, ...(uncertainList.length ? { unconfirmed: uncertainList } : {}) };

  async function report(card: boolean): Promise<void> {
    if (card) {
      // The card is one message, edited in place; an unchanged picture is not sent again.
      const text = planCard(state(), stopped ? 'stopping' : 'running');
      if (text !== lastCard)
        await statusActivities.planCard({ planId: input.planId, effectKey: `${input.planId}/card`, replyTarget: input.replyTarget, text });
      lastCard = text;
      return;
    }
    const text = `Plan ${input.planId}: ${units.map((unit) => `${unit.key} ${unit.status}${unit.pullRequest ? ` (#${unit.pullRequest})` : ''}`).join(', ')}.`;
    // Progress reports are keyed by their text, so an unchanged picture is not posted twice.
    await replies.deliverReply({ effectKey: `${input.planId}/progress/${hash(text)}`, replyTarget: input.replyTarget, text });
  }
}

function settled(unit: PlanUnitState): boolean {
  return unit.status === 'merged' || unit.status === 'settled' || unit.status === 'blocked';
}

/** A short deterministic hash (FNV-1a) for effect keys. */
function hash(text: string): string {
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    value ^= text.charCodeAt(index);
    value = Math.imul(value, 0x01000193) >>> 0;
  }
  return value.toString(16);
}
