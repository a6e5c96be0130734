import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  patched,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  boards,
  githubUnitSteps,
  githubWrites,
  hostBound,
  repoReads,
  residentBound,
  residentQueues,
  runWaits,
  setup,
  spendLedger,
  status,
  unitWorkspace,
} from './activity-proxies';
import { preferCacheHost } from './run/resident-host';
import {
  agentRunWorkflowType,
  checksSignal,
  mergeSignal,
  prEventSignal,
  resendUpdate,
  steerSignal,
  steerUpdate,
  stopSignal,
  uncertainWritesQuery,
  unitStateQuery,
  unitUpdateSignal,
  type PlanUnitProgress,
  type ReplyTarget,
  type ShipUnitInput,
  type ShipUnitWorkflow,
  type UnitCarry,
  type UnitRecord,
} from './contracts';
import { UncertainWrites, type UncertainActivities } from './effects/uncertain-writes';
import { CANCEL_STOP, cancelAsStop, type OnCancel } from './cancel-as-stop';
import { failureReason, isContinueAsNew } from './failure-reason';
import type { WorkflowClock } from './run/run-control';
import { Outcome, Phase, PullRequest } from './search-attributes';
import { unitBranchName } from './unit/branch';
import { PeoplesReviews } from './unit/peoples-reviews';
import { startOrFollow } from './unit/running-child';
import { Settle } from './unit/settle';
import { consolidateUnit } from './unit/consolidate';
import { Unit, type UnitActivities, type UnitPorts } from './unit/unit';
import { UnitCourse } from './unit/unit-course';
import { planUpdate, UnitMessages } from './unit/unit-messages';
import { loadUnitSettings } from './unit/unit-setup';
import { initialCarry, readRepository, unitSearchAttributes } from './unit/unit-start';
import { unitDetails } from './unit/unit-details';
import { UnitInbox } from './unit/unit-inbox';
import { UnitSpend } from './unit/unit-spend';
import { releaseSpend } from './spend/release';
import { InputGuard } from './input-guard';

// The unit's patch ids and its history bound, where the classes that ask them keep them.
export { UNIT_HISTORY_LIMIT, UNIT_HOLDS_PR_EVENTS } from './unit/unit-course';
export { UNIT_REPO_SETTINGS } from './unit/unit-start';

/** The `patched()` id of saying "could not confirm delivery of …" in the unit's conversation (docs/versioning.md). */
export const UNCERTAIN_WRITE_NOTICE = 'uncertain-write-notice';

/**
 * One unit lifetime as a plain state machine: coding -> review -> findings -> checks ->
 * continuation -> idle -> settle. No model decides the control flow: runs are children, every
 * write is an effect-keyed activity, and CI waits, idle windows and reminders are timers. This
 * function holds the message handlers, the waits and the loop; the loop's decisions are
 * UnitCourse's, the handlers' UnitMessages', and each phase is a class in unit/.
 */
export async function shipUnitWorkflow(input: ShipUnitInput): Promise<UnitRecord> {
  return cancelAsStop((onCancel) => shipUnit(input, onCancel));
}

async function shipUnit(input: ShipUnitInput, onCancel: OnCancel): Promise<UnitRecord> {
  const { unitId } = input;
  const c: UnitCarry = input.carry ?? initialCarry(input, Date.now());
  const inbox = new UnitInbox(c);
  // Every message is checked whole first (contracts/inputs.ts); a malformed signal is dropped and counted.
  const guard = new InputGuard('shipUnitWorkflow', () => showDetails());
  // A setup that fails settles the unit `failed` like any other end (unit/unit-setup.ts).
  const loaded = await loadUnitSettings(input, () => setup.loadAgentSetup());
  // A new unit's branch goes under the deployment's prefix (setups recorded before it name none: the default, as before).
  if (!input.carry && loaded.settings?.ship.branchPrefix) c.branch = unitBranchName(unitId, loaded.settings.ship.branchPrefix);
  const uncertain = uncertainWrites(c, unitId, () => unit.replyTarget);
  const ports = temporalPorts(input, c, () => showDetails());
  const unit = new Unit(input, c, inbox, loaded.settings, unitActivities(uncertain.recording()), ports);
  unit.spend = new UnitSpend(unit, { reserve: (request) => spendLedger.reserveSpend(request), release: releaseSpend });
  // The Web UI's current details (a workflow metadata query: no command, nothing to replay).
  function showDetails(): void {
    setCurrentDetails(unitDetails(unit.state(), guard.note()));
  }
  const messages = new UnitMessages(unit, { stopRun, drop: (name, problem) => guard.drop(name, problem) });

  setHandler(unitStateQuery, () => unit.state());
  guard.signal(steerSignal, (steer) => messages.steer(steer));
  guard.update(steerUpdate, (steer) => messages.steerAccepted(steer), {
    code: 'steer_rejected',
    also: () => messages.refuseSteerOnceSettled(),
  });
  guard.signal(stopSignal, (stop) => messages.stop(stop));
  onCancel(() => messages.stop(CANCEL_STOP));
  guard.signal(prEventSignal, (event) => messages.prEvent(event));
  guard.signal(checksSignal, (event) => messages.checks(event));
  guard.signal(mergeSignal, () => messages.merge());
  setHandler(uncertainWritesQuery, () => c.uncertain ?? []);
  guard.update(resendUpdate, (request) => uncertain.resend(request), {
    code: 'resend_refused',
    also: (request) => void uncertain.validate(request),
  });

  upsertSearchAttributes(unitSearchAttributes(input, c));
  unit.enter(c.phase);
  const course = new UnitCourse(unit);
  try {
    if (loaded.error) throw loaded.error;
    await readRepository(unit, {
      repoSettings: (read) => repoReads.repoSettings(read),
      deliverReply: (reply) => status.deliverReply(reply),
    });
    while (!course.settled()) {
      const people = inbox.apply(c, (phase) => unit.enter(phase), { hold: course.holdsPullRequestEvents() });
      if (people.length > 0 && c.pullRequest) await new PeoplesReviews(unit).take(people);
      if (course.continuesAsNew(workflowInfo)) {
        upsertSearchAttributes([{ key: Phase, value: 'continuation' }]);
        await condition(allHandlersFinished);
        await continueAsNew<ShipUnitWorkflow>({ ...input, carry: c });
      }
      if (course.ended(await course.round().run())) break;
    }
  } catch (error) {
    // A phase that fails anyway (an activity's non-retryable failure, a bug) still settles:
    // outcome `failed` with the reason, the report, the workspaces released.
    if (isContinueAsNew(error)) throw error;
    course.failed(failureReason(error));
  }
  // Every way out of the loop above set the outcome (settled, a round's end, a failure).
  const record = await new Settle(unit).run(unit.outcome!);
  // Where the repository's board consolidates units, rem-agent reads this one's work (docs/board.md).
  await consolidateUnit(unit.repository?.settings.board, input, record, { boards, patched });
  // A resend in flight finishes (and is recorded) before the unit closes.
  await condition(allHandlersFinished);
  return record;
}

/** The unit's writes that end unconfirmed: listed in its carry for `resend`, and said in its conversation. */
function uncertainWrites(c: UnitCarry, unitId: string, replyTarget: () => ReplyTarget): UncertainWrites {
  return new UncertainWrites(
    (c.uncertain ??= []),
    { githubWrites, status },
    {
      now: () => Date.now(),
      workflowId: unitId,
      // Said in the unit's conversation; histories recorded before this say nothing (docs/versioning.md).
      notify: async (write, text) => {
        if (patched(UNCERTAIN_WRITE_NOTICE))
          await status.deliverReply({ effectKey: `${write.effectKey}/notice`, replyTarget: replyTarget(), text });
      },
    },
  );
}

/** Stops a unit's running child; a run that has ended already cannot take it. */
function stopRun(runId: string, reason: string): void {
  getExternalWorkflowHandle(runId)
    .signal(stopSignal, { reason })
    .catch(() => undefined);
}

/** The activities a unit's phases call: its writes recorded when unconfirmed, a resident checkout on a cache host. */
function unitActivities(recording: UncertainActivities): UnitActivities {
  // A resident checkout goes first to a host that holds the repository's cache, when one is there.
  const resident = preferCacheHost({ shared: unitWorkspace, lookup: residentQueues, onQueue: residentBound, patched });
  return {
    workspace: {
      prepareUnitWorkspace: (prepare) => resident.prepareUnitWorkspace(prepare),
      commitWorkspace: (commit) => unitWorkspace.commitWorkspace(commit),
      releaseWorkspace: (release) => unitWorkspace.releaseWorkspace(release),
    },
    github: githubUnitSteps,
    githubWrites: {
      ...recording.githubWrites,
      mergePullRequest: (merge) => githubWrites.mergePullRequest(merge),
      resolveReviewThread: (resolve) => githubWrites.resolveReviewThread(resolve),
    },
    status: recording.status,
    onHost: hostBound,
  };
}

/** The Temporal calls a unit's phases make: every wait and child start first shows what the unit waits for. */
function temporalPorts(input: ShipUnitInput, c: UnitCarry, showDetails: () => void): UnitPorts {
  const notifyPlan = async (progress: PlanUnitProgress): Promise<void> => {
    const update = planUpdate(input, c, progress);
    if (!input.plan || !update) return;
    await getExternalWorkflowHandle(input.plan.workflowId)
      .signal(unitUpdateSignal, update)
      .catch(() => undefined);
  };
  return {
    now: () => Date.now(),
    // Every wait (a run, CI, the idle window) first shows what the unit waits for.
    condition: ((test: () => boolean, timeoutMs?: number) => {
      showDetails();
      return timeoutMs === undefined ? condition(test) : condition(test, timeoutMs);
    }) as WorkflowClock['condition'],
    startRun: (workflowId, run, staticSummary) => {
      showDetails();
      // A reset execution may find the run its predecessor started still working: it follows that one.
      return startOrFollow(
        workflowId,
        () =>
          startChild(agentRunWorkflowType, {
            workflowId,
            args: [run],
            parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
            staticSummary,
          }),
        {
          awaitRun: (runId) => runWaits.awaitRun({ runId }),
          signal: (runId, definition, stop) => getExternalWorkflowHandle(runId).signal(definition, stop),
        },
        patched,
      );
    },
    entered: (phase) => {
      upsertSearchAttributes([{ key: Phase, value: phase }]);
      showDetails();
      notifyPlan({ status: phase }).catch(() => undefined);
    },
    openedPullRequest: (number) => upsertSearchAttributes([{ key: PullRequest, value: number }]),
    notifyPlan,
    patched,
    recordOutcome: (outcome) => {
      upsertSearchAttributes([{ key: Outcome, value: outcome }]);
      showDetails();
    },
  };
}
