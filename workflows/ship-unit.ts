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
import { repositoryRefusal } from '../agents';
import { settingsNotice } from './thread/repo-settings';
import {
  agentRunWorkflowType,
  checksSignal,
  failure,
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
  type PlanUnitUpdate,
  type ShipUnitInput,
  type ShipUnitWorkflow,
  type UnitCarry,
  type UnitOutcome,
  type UnitRecord,
  type StopInput,
} from './contracts';
import { UncertainWrites } from './effects/uncertain-writes';
import { CANCEL_STOP, cancelAsStop, type OnCancel } from './cancel-as-stop';
import { failureReason, isContinueAsNew } from './failure-reason';
import { stopWords, type WorkflowClock } from './run/run-control';
import { Outcome, Phase, PullRequest, Repo, Requester, SwitchboardKind, Thread } from './search-attributes';
import { unitBranchName } from './unit/branch';
import { ChecksRound } from './unit/checks-round';
import { CodingRound } from './unit/coding-round';
import { IdleRound } from './unit/idle-round';
import { PeoplesReviews } from './unit/peoples-reviews';
import { ReviewRound } from './unit/review-round';
import { startOrFollow } from './unit/running-child';
import { Settle } from './unit/settle';
import { consolidateUnit } from './unit/consolidate';
import { Unit } from './unit/unit';
import { loadUnitSettings } from './unit/unit-setup';
import { unitDetails } from './unit/unit-details';
import { UnitInbox } from './unit/unit-inbox';
import { UnitSpend } from './unit/unit-spend';
import { releaseSpend } from './spend/release';
import { InputGuard } from './input-guard';

/** The `patched()` id of saying "could not confirm delivery of …" in the unit's conversation (docs/versioning.md). */
export const UNCERTAIN_WRITE_NOTICE = 'uncertain-write-notice';

/** The `patched()` id of a unit that holds PR events until it has (re)opened its PR (docs/versioning.md). */
export const UNIT_HOLDS_PR_EVENTS = 'unit-holds-pr-events-until-its-pr';

/**
 * The `patched()` id of a unit that reads its repository's settings when it starts: the gate its
 * reviews apply, the agents the repository allows (a unit refuses itself when `ship` is not one,
 * whichever door started it), and a broken `.switchboard.yml` said once in its conversation.
 */
export const UNIT_REPO_SETTINGS = 'unit-repo-settings';

/** Continue-as-new at a round boundary once history passes this many events (or Temporal suggests it). */
export const UNIT_HISTORY_LIMIT = 2_000;

/**
 * One unit lifetime as a plain state machine: coding -> review -> findings -> checks ->
 * continuation -> idle -> settle. No model decides the control flow: runs are children, every
 * write is an effect-keyed activity, and CI waits, idle windows and reminders are timers. This
 * function holds the message handlers and the phase dispatch; each phase is a class in unit/.
 */
export async function shipUnitWorkflow(input: ShipUnitInput): Promise<UnitRecord> {
  return cancelAsStop((onCancel) => shipUnit(input, onCancel));
}

async function shipUnit(input: ShipUnitInput, onCancel: OnCancel): Promise<UnitRecord> {
  const { unitId, repo } = input;
  const c: UnitCarry = input.carry ?? initialCarry(input, Date.now());
  const inbox = new UnitInbox(c);
  // Every message is checked whole first (contracts/inputs.ts); a malformed signal is dropped and counted.
  const guard = new InputGuard('shipUnitWorkflow', () => showDetails());
  // A setup that fails settles the unit `failed` like any other end (unit/unit-setup.ts).
  const loaded = await loadUnitSettings(input, () => setup.loadAgentSetup());
  // A new unit's branch goes under the deployment's prefix (setups recorded before it name none: the default, as before).
  if (!input.carry && loaded.settings?.ship.branchPrefix) c.branch = unitBranchName(unitId, loaded.settings.ship.branchPrefix);

  const notifyPlan = async (progress: PlanUnitProgress): Promise<void> => {
    if (!input.plan) return;
    const { status: phase, ...extra } = progress;
    const update = {
      key: input.plan.key,
      unitId,
      status: phase,
      pullRequest: c.pullRequest,
      headSha: c.headSha,
      ...(c.spentUsd !== undefined ? { spentUsd: c.spentUsd } : {}),
      ...extra,
    } as PlanUnitUpdate;
    await getExternalWorkflowHandle(input.plan.workflowId)
      .signal(unitUpdateSignal, update)
      .catch(() => undefined);
  };
  const uncertain = new UncertainWrites(
    (c.uncertain ??= []),
    { githubWrites, status },
    {
      now: () => Date.now(),
      workflowId: unitId,
      // Said in the unit's conversation; histories recorded before this say nothing (docs/versioning.md).
      notify: async (write, text) => {
        if (patched(UNCERTAIN_WRITE_NOTICE))
          await status.deliverReply({ effectKey: `${write.effectKey}/notice`, replyTarget: unit.replyTarget, text });
      },
    },
  );
  const recording = uncertain.recording();
  // A resident checkout goes first to a host that holds the repository's cache, when one is there.
  const resident = preferCacheHost({ shared: unitWorkspace, lookup: residentQueues, onQueue: residentBound, patched });
  const unit = new Unit(
    input,
    c,
    inbox,
    loaded.settings,
    {
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
    },
    {
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
    },
  );
  unit.spend = new UnitSpend(unit, { reserve: (request) => spendLedger.reserveSpend(request), release: releaseSpend });
  // The Web UI's current details (a workflow metadata query: no command, nothing to replay).
  function showDetails(): void {
    setCurrentDetails(unitDetails(unit.state(), guard.note()));
  }

  setHandler(unitStateQuery, () => unit.state());
  const stopCurrentRun = (reason: string) => {
    if (unit.currentRun)
      getExternalWorkflowHandle(unit.currentRun)
        .signal(stopSignal, { reason })
        .catch(() => undefined);
  };
  guard.signal(steerSignal, (steer) => inbox.steer(steer));
  guard.update(
    steerUpdate,
    (steer) => {
      inbox.steer(steer);
      return { accepted: true as const };
    },
    {
      code: 'steer_rejected',
      also: () => {
        if (unit.outcome) throw failure('steer_rejected', `the unit has settled (${unit.outcome})`);
      },
    },
  );
  const stopUnit = (stop: StopInput | undefined) => {
    inbox.stop(stop ?? {});
    stopCurrentRun(stop?.reason ?? 'the unit was stopped');
  };
  guard.signal(stopSignal, stopUnit);
  onCancel(() => stopUnit(CANCEL_STOP));
  guard.signal(prEventSignal, (event) => {
    const elsewhere = otherPullRequest(event, repo, c.pullRequest);
    if (elsewhere) return guard.drop(prEventSignal.name, elsewhere);
    inbox.prEvent(event);
    if (inbox.terminal) stopCurrentRun(`the pull request was ${inbox.terminal.outcome}`);
  });
  guard.signal(checksSignal, (event) => {
    const elsewhere = otherPullRequest(event, repo, c.pullRequest);
    if (elsewhere) return guard.drop(checksSignal.name, elsewhere);
    inbox.checks(event);
  });
  guard.signal(mergeSignal, () => inbox.requestMerge());
  setHandler(uncertainWritesQuery, () => c.uncertain ?? []);
  guard.update(resendUpdate, (request) => uncertain.resend(request), {
    code: 'resend_refused',
    also: (request) => void uncertain.validate(request),
  });

  upsertSearchAttributes([
    { key: SwitchboardKind, value: 'unit' },
    { key: Repo, value: repo },
    { key: Requester, value: input.requester.id },
    ...(input.threadId ? [{ key: Thread, value: input.threadId }] : []),
    ...(c.pullRequest ? [{ key: PullRequest, value: c.pullRequest }] : []),
  ]);
  unit.enter(c.phase);

  try {
    if (loaded.error) throw loaded.error;
    if (patched(UNIT_REPO_SETTINGS)) {
      unit.repository = await repoReads.repoSettings({ repo }).catch(() => undefined);
      const notice = settingsNotice(unit.repository);
      if (notice && !c.pullRequest) await status.deliverReply({ ...notice, replyTarget: input.replyTarget }).catch(() => undefined);
      // The repository's agents.allowed, whichever door started the unit (the CLI, the API, a plan, the orchestrator).
      const agents = unit.repository?.settings.agents;
      const refused = agents && repositoryRefusal({ [repo.toLowerCase()]: agents }, repo, { id: 'ship', displayName: 'Ship' });
      if (refused) throw failure('repo_agent_not_allowed', refused.message);
    }
    for (;;) {
      const settled = inbox.stopped ? 'stopped' : inbox.terminal?.outcome;
      if (settled) {
        unit.endedBy ??= settled === 'stopped' ? stopWords(inbox.stopped!) : `the pull request was ${settled}`;
        unit.outcome = settled;
        break;
      }
      // A unit without its PR yet holds PR events (a reset unit gets its own earlier ones first); older histories did not.
      const hold = !c.pullRequest && inbox.hasPullRequestEvents() && patched(UNIT_HOLDS_PR_EVENTS);
      const people = inbox.apply(c, (phase) => unit.enter(phase), { hold });
      if (people.length > 0 && c.pullRequest) await new PeoplesReviews(unit).take(people);
      let next: UnitOutcome | undefined;
      if (c.phase === 'coding' || c.phase === 'findings') {
        // A round boundary with nothing waiting in the inbox: the history can start afresh here.
        if (
          c.round > 0 &&
          inbox.quiet() &&
          (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > UNIT_HISTORY_LIMIT / 4)
        ) {
          upsertSearchAttributes([{ key: Phase, value: 'continuation' }]);
          await condition(allHandlersFinished);
          await continueAsNew<ShipUnitWorkflow>({ ...input, carry: c });
        }
        next = await new CodingRound(unit).run();
      } else if (c.phase === 'review') next = await new ReviewRound(unit).run();
      else if (c.phase === 'checks') next = await new ChecksRound(unit).run();
      else next = await new IdleRound(unit).run();
      if (next) {
        unit.outcome = next;
        break;
      }
    }
  } catch (error) {
    // A phase that fails anyway (an activity's non-retryable failure, a bug) still settles:
    // outcome `failed` with the reason, the report, the workspaces released.
    if (isContinueAsNew(error)) throw error;
    unit.outcome = 'failed';
    unit.endedBy = failureReason(error);
  }
  const record = await new Settle(unit).run(unit.outcome);
  // Where the repository's board consolidates units, rem-agent reads this one's work (docs/board.md).
  await consolidateUnit(unit.repository?.settings.board, input, record, { boards, patched });
  // A resend in flight finishes (and is recorded) before the unit closes.
  await condition(allHandlersFinished);
  return record;
}

/** Why an event for another repository or pull request than the unit's is not its to take (undefined: it is). */
function otherPullRequest(event: { repo: string; number: number }, repo: string, pullRequest: number | undefined): string | undefined {
  if (event.repo.toLowerCase() !== repo.toLowerCase()) return `it is for ${event.repo}, and this unit works on ${repo}`;
  if (pullRequest !== undefined && event.number !== pullRequest)
    return `it is for #${event.number}, and this unit's pull request is #${pullRequest}`;
  return undefined;
}

function initialCarry(input: ShipUnitInput, now: number): UnitCarry {
  return {
    phase: input.pullRequest ? 'review' : 'coding',
    round: 0,
    branch: unitBranchName(input.unitId),
    work: input.request ? [{ kind: 'request', text: input.request }] : [],
    reviews: 0,
    postedReviews: [],
    runMinutes: 0,
    reminders: 0,
    startedAt: now,
    ...(input.pullRequest ? { pullRequest: input.pullRequest } : {}),
  };
}
