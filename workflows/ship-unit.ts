import {
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { buildSystemPrompt, getAgent, resolveProfile, type Profile } from '../agents';
import { githubUnitSteps as github, githubWrites, setup, status as statusActivities, unitWorkspace as workspace } from './activity-proxies';
import { Outcome, Phase, PullRequest, Repo, Requester, SwitchboardKind, Thread } from './search-attributes';
import { applyGate, renderReview, validateSubmission } from './unit/review-gate';
import { codingRequest, reviewRequest, unitReport } from './unit/unit-prompts';
import { unitBranchName } from './unit/branch';
import { UnitInbox } from './unit/unit-inbox';
import {
  agentRunWorkflowType,
  checksSignal,
  failure,
  mergeSignal,
  prEventSignal,
  steerSignal,
  steerUpdate,
  stopSignal,
  unitStateQuery,
  unitUpdateSignal,
  type PlanUnitProgress,
  type PlanUnitUpdate,
  type RunRecord,
  type ShipUnitInput,
  type StopInput,
  type UnitCarry,
  type UnitOutcome,
  type UnitPhase,
  type UnitRecord,
  type UnitState,
} from './contracts';

/** Continue-as-new at a round boundary once history passes this many events (or Temporal suggests it). */
export const UNIT_HISTORY_LIMIT = 2_000;
/** A review run whose submission is invalid is asked again this many times. */
export const REVIEW_RETRIES = 1;

const MINUTE = 60_000;

/**
 * One unit lifetime as a plain state machine: coding -> review -> findings -> checks ->
 * continuation -> idle -> settle. No model decides the control flow: runs are children, every
 * write is an effect-keyed activity, and CI waits, idle windows and reminders are timers.
 */
export async function shipUnitWorkflow(input: ShipUnitInput): Promise<UnitRecord> {
  const { unitId, repo } = input;
  const c: UnitCarry = input.carry ?? {
    phase: input.pullRequest ? 'review' : 'coding',
    round: 0,
    branch: unitBranchName(unitId),
    work: input.request ? [{ kind: 'request', text: input.request }] : [],
    reviews: 0,
    postedReviews: [],
    runMinutes: 0,
    reminders: 0,
    startedAt: Date.now(),
    ...(input.pullRequest ? { pullRequest: input.pullRequest } : {}),
  };
  const inbox = new UnitInbox(c);
  let currentRun: string | undefined;
  let nextTimer: UnitState['nextTimer'];
  let outcome: UnitOutcome | undefined;

  const { catalog, config, ship, backends } = await setup.loadAgentSetup();
  const profileFor = (agentId: string): { profile: Profile; system: string } => {
    const agent = getAgent(catalog, agentId);
    if (!agent) throw failure('agent_unknown', `the ${agentId} agent is not in the catalog`);
    const profile = resolveProfile({
      agent,
      config,
      directives: { repo, ...(input.model ? { model: input.model } : {}) },
      userId: input.requester.id,
      ...(backends ? { tooling: { backends, conversation: input.replyTarget.kind } } : {}),
    });
    return { profile, system: agent.pipeline ? '' : buildSystemPrompt(agent, profile) };
  };
  const coding = profileFor('coding');
  const review = profileFor('review');
  const budgetMinutes = profileFor('ship').profile.budget.minutes;

  setHandler(unitStateQuery, (): UnitState => ({
    unitId,
    repo,
    requester: input.requester.id,
    phase: c.phase,
    round: c.round,
    maxRounds: ship.maxRounds,
    branch: c.branch,
    reminders: c.reminders,
    ...(c.pullRequest ? { pullRequest: c.pullRequest } : {}),
    ...(c.headSha ? { headSha: c.headSha } : {}),
    ...(c.lastReview ? { lastReview: c.lastReview } : {}),
    ...(c.checks ? { checks: c.checks } : {}),
    ...(nextTimer ? { nextTimer } : {}),
    ...(currentRun ? { currentRun } : {}),
    ...(outcome ? { outcome } : {}),
  }));
  const stopCurrentRun = (reason: string) => {
    if (currentRun)
      getExternalWorkflowHandle(currentRun)
        .signal(stopSignal, { reason })
        .catch(() => undefined);
  };
  setHandler(steerSignal, (steer) => inbox.steer(steer));
  setHandler(
    steerUpdate,
    (steer) => {
      inbox.steer(steer);
      return { accepted: true };
    },
    {
      validator: (steer) => {
        if (typeof steer?.text !== 'string' || !steer.text.trim()) throw failure('steer_rejected', 'steer needs non-empty text');
        if (outcome) throw failure('steer_rejected', `the unit has settled (${outcome})`);
      },
    },
  );
  setHandler(stopSignal, (stop) => {
    inbox.stop(stop ?? {});
    stopCurrentRun(stop?.reason ?? 'the unit was stopped');
  });
  setHandler(prEventSignal, (event) => {
    inbox.prEvent(event);
    if (inbox.terminal) stopCurrentRun(`the pull request was ${inbox.terminal.outcome}`);
  });
  setHandler(checksSignal, (event) => inbox.checks(event));
  setHandler(mergeSignal, () => inbox.requestMerge());

  upsertSearchAttributes([
    { key: SwitchboardKind, value: 'unit' },
    { key: Repo, value: repo },
    { key: Requester, value: input.requester.id },
    ...(input.threadId ? [{ key: Thread, value: input.threadId }] : []),
    ...(c.pullRequest ? [{ key: PullRequest, value: c.pullRequest }] : []),
  ]);
  const enter = (phase: UnitPhase) => {
    c.phase = phase;
    upsertSearchAttributes([{ key: Phase, value: phase }]);
    notifyPlan({ status: phase });
  };
  enter(c.phase);

  function notifyPlan(progress: PlanUnitProgress): void {
    if (!input.plan) return;
    const { status, ...extra } = progress;
    const update = { key: input.plan.key, unitId, status, pullRequest: c.pullRequest, headSha: c.headSha, ...extra } as PlanUnitUpdate;
    getExternalWorkflowHandle(input.plan.workflowId)
      .signal(unitUpdateSignal, update)
      .catch(() => undefined);
  }

  // A function, not an inline test: signals can change the inbox across every await.
  const halted = (): boolean => Boolean(inbox.stopped || inbox.terminal);

  async function runChild(
    kind: 'coding' | 'review',
    chosen: { profile: Profile; system: string },
    request: string,
    workspaceKey: string,
  ): Promise<RunRecord | undefined> {
    // Stopped (or merged) while the workspace was being prepared: start nothing.
    if (halted()) return undefined;
    const workflowId = `${unitId}/${kind}-${c.round + (kind === 'coding' ? 1 : 0)}-${c.reviews + 1}`;
    currentRun = workflowId;
    try {
      const handle = await startChild(agentRunWorkflowType, {
        workflowId,
        args: [
          {
            threadId: input.threadId ?? unitId,
            profile: chosen.profile,
            system: chosen.system,
            request,
            requester: input.requester,
            context: [],
            replyTarget: input.replyTarget,
            workspaceKey,
          },
        ],
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        staticSummary: `${kind} run of ${unitId}`,
      });
      // A stop that arrived while the child was starting could not reach it yet: send it now.
      if (halted()) await handle.signal(stopSignal, { reason: inbox.stopped?.reason ?? 'the unit is settling' });
      const record = await handle.result();
      c.runMinutes += (record.endedAt - record.startedAt) / MINUTE;
      return record;
    } catch {
      return undefined;
    } finally {
      currentRun = undefined;
    }
  }

  /** A coding round: the change (or the fixes) on the unit's branch, pushed, and the PR opened or updated. */
  async function codingRound(): Promise<UnitOutcome | undefined> {
    if (c.round >= ship.maxRounds + 1) return 'out_of_rounds';
    if (c.runMinutes >= budgetMinutes) return 'budget';
    const ws = await workspace.prepareUnitWorkspace({
      workspaceKey: unitId,
      repo,
      branch: c.branch,
      identity: 'write',
      ...((c.base ?? ship.baseBranch) ? { base: c.base ?? ship.baseBranch } : {}),
    });
    c.base = ws.base;
    const request = codingRequest(
      { repo, branch: c.branch, base: c.base, round: c.round + 1, ...(c.pullRequest ? { pullRequest: c.pullRequest } : {}) },
      c.work,
    );
    const record = await runChild('coding', coding, request, unitId);
    c.round += 1;
    if (inbox.stopped || inbox.terminal) return undefined;
    if (!record || record.outcome !== 'completed')
      return failWith(`the coding run ended ${record?.outcome ?? 'without a record'}${record?.endedBy ? ` (${record.endedBy})` : ''}`);
    const commit = await workspace.commitWorkspace({ workspaceKey: unitId, message: `switchboard: round ${c.round}`, since: ws.headSha });
    if (!commit.changed && !c.pullRequest) return failWith('the coding run made no change');
    c.work = [];
    if (commit.changed) {
      const push = await github.pushBranch({
        repo,
        identity: 'write',
        workingDirectory: ws.path,
        branch: c.branch,
        effectKey: `${unitId}/push/${c.round}`,
      });
      if (push.status !== 'confirmed') return failWith(`the push was ${push.status}: ${push.reason ?? push.code ?? ''}`);
      c.headSha = commit.headSha;
    }
    const description = record.submissions.submit_description as { title?: string; body?: string } | undefined;
    if (!c.pullRequest || description) {
      const pr = await githubWrites.openOrUpdatePullRequest({
        repo,
        identity: 'write',
        head: c.branch,
        base: c.base,
        effectKey: `${unitId}/pr/${c.pullRequest ? c.round : 'open'}`,
        title: description?.title ?? firstLine(input.request ?? `Switchboard change ${unitId}`),
        body: description?.body ?? `${input.request ?? ''}\n\nOpened by Switchboard unit ${unitId}.`,
      });
      if (pr.status !== 'confirmed') return failWith(`opening the pull request was ${pr.status}${pr.reason ? `: ${pr.reason}` : ''}`);
      if (!c.pullRequest && pr.number) {
        c.pullRequest = pr.number;
        upsertSearchAttributes([{ key: PullRequest, value: pr.number }]);
      }
    }
    enter('review');
    return undefined;
  }

  /** A review of the PR head; posted only to the commit reviewed, and only while it is still the head. */
  async function reviewRound(): Promise<UnitOutcome | undefined> {
    if (c.runMinutes >= budgetMinutes) return 'budget';
    const pr = await github.githubPullGet({ repo, number: c.pullRequest!, identity: 'read' });
    if (pr.merged) return 'merged';
    if (pr.state === 'closed') return 'closed';
    c.headSha = pr.headSha;
    c.base = pr.baseRef;
    const reviewKey = `${unitId}/review`;
    await workspace.prepareUnitWorkspace({
      workspaceKey: reviewKey,
      repo,
      branch: 'switchboard-review',
      base: pr.baseRef,
      checkoutSha: pr.headSha,
      identity: 'read',
    });
    let problem: string | undefined;
    let validated: ReturnType<typeof validateSubmission> = { ok: false, problem: 'no review run' };
    for (let attempt = 0; attempt <= REVIEW_RETRIES && !validated.ok; attempt += 1) {
      const request =
        `${reviewRequest({ repo, pullRequest: c.pullRequest!, headSha: pr.headSha, base: pr.baseRef, gate: ship.addressSeverity })}\n(review ${c.reviews + 1} of this unit)` +
        (problem ? `\nYour previous submission was invalid: ${problem}. Submit a valid review.` : '');
      const record = await runChild('review', review, request, reviewKey);
      if (inbox.stopped || inbox.terminal) return undefined;
      validated = validateSubmission(record?.submissions.submit_review);
      if (!validated.ok) problem = validated.problem;
    }
    if (!validated.ok) return failWith(`the review run did not submit a valid review: ${validated.problem}`);
    const { summary, addressed } = applyGate(validated.submission, ship.addressSeverity, pr.headSha);
    const current = await github.githubPullGet({ repo, number: c.pullRequest!, identity: 'read' });
    if (current.headSha !== pr.headSha) {
      c.headSha = current.headSha;
      return undefined; // the head moved during the review: review again, post nothing for the old commit
    }
    const posted = await githubWrites.postReview({
      repo,
      identity: 'write',
      number: c.pullRequest!,
      commitSha: pr.headSha,
      event: 'COMMENT',
      body: renderReview(validated.submission, summary, ship.addressSeverity),
      effectKey: `${unitId}/review/${pr.headSha}`,
    });
    if (posted.status === 'refused' && posted.code === 'head_moved') return undefined;
    c.reviews += 1;
    if (posted.id) c.postedReviews.push(posted.id);
    c.lastReview = { ...summary, posted: posted.status };
    if (addressed.length > 0) {
      c.work.push({ kind: 'findings', source: 'review', findings: addressed });
      enter('findings');
    } else {
      c.checks = { state: 'waiting', headSha: pr.headSha, polls: 0 };
      enter('checks');
    }
    return undefined;
  }

  /** Waits for CI on the head: the `checks` signal, with a timer-driven poll as the fallback. */
  async function checksRound(): Promise<UnitOutcome | undefined> {
    const headSha = c.headSha!;
    c.checks ??= { state: 'waiting', headSha, polls: 0 };
    const started = Date.now();
    const deadline = started + ship.checksTimeoutMinutes * MINUTE;
    for (let first = true; ; first = false) {
      // The first look is immediate (CI may be done already); later ones wait for a signal or the poll timer.
      const wait = first ? 0 : Math.min(ship.checksPollSeconds * 1_000, Math.max(0, deadline - Date.now()));
      if (wait > 0) {
        nextTimer = { purpose: 'checks poll', at: new Date(Date.now() + wait).toISOString() };
        await condition(() => inbox.checksArrivedFor(headSha) || inbox.interrupting(), wait);
        nextTimer = undefined;
      }
      if (inbox.interrupting()) return undefined;
      inbox.clearChecks();
      const checks = await github.githubCommitChecks({ repo, ref: headSha, identity: 'read' });
      c.checks.polls += 1;
      // Right after a push CI may not have registered yet: "no checks" counts as green only after a poll interval.
      const noneReported = checks.checkRuns.length === 0 && checks.statuses.length === 0;
      const settledEmpty = noneReported && (Date.now() - started >= ship.checksPollSeconds * 1_000 || Date.now() >= deadline);
      if (checks.overall === 'success' && (!noneReported || settledEmpty)) {
        c.checks.state = 'success';
        enter('idle');
        return undefined;
      }
      if (checks.overall === 'failure') {
        const failed = [
          ...checks.checkRuns
            .filter((run) => run.conclusion && run.conclusion !== 'success' && run.conclusion !== 'skipped' && run.conclusion !== 'neutral')
            .map((run) => `${run.name}: ${run.conclusion}`),
          ...checks.statuses.filter((s) => s.state === 'failure' || s.state === 'error').map((s) => `${s.context}: ${s.state}`),
        ];
        c.checks.state = 'failure';
        c.checks.detail = failed.join('; ');
        c.work.push({ kind: 'checks', detail: `Failing on ${headSha.slice(0, 12)}: ${c.checks.detail}` });
        enter('coding');
        return undefined;
      }
      if (Date.now() >= deadline) {
        c.checks.state = 'timed_out';
        c.checks.detail = `CI still pending after ${ship.checksTimeoutMinutes} minutes`;
        enter('idle');
        return undefined;
      }
    }
  }

  /** The PR is ready: wait for people, with reminders, until the idle window closes. */
  async function idleRound(): Promise<UnitOutcome | undefined> {
    const ready =
      c.checks?.state === 'success'
        ? 'the review approves and checks are green'
        : `the review approves; ${c.checks?.detail ?? 'checks are unknown'}`;
    await statusActivities.deliverReply({
      effectKey: `${unitId}/ready/${c.headSha}`,
      replyTarget: input.replyTarget,
      text: `PR #${c.pullRequest} on ${repo} is ready: ${ready}.`,
    });
    notifyPlan({ status: 'ready' });
    const deadline = Date.now() + ship.idleTimeoutDays * 24 * 60 * MINUTE;
    const every = ship.reminderHours * 60 * MINUTE;
    for (;;) {
      const wait = Math.min(every, Math.max(0, deadline - Date.now()));
      nextTimer = { purpose: wait < every ? 'idle expiry' : 'reminder', at: new Date(Date.now() + wait).toISOString() };
      const woke = await condition(() => inbox.interrupting() || inbox.mergeRequested, wait);
      nextTimer = undefined;
      if (inbox.interrupting()) return undefined;
      if (inbox.mergeRequested) return mergeNow();
      if (!woke && Date.now() >= deadline) return 'idle_expired';
      if (!woke) {
        c.reminders += 1;
        await statusActivities.deliverReply({
          effectKey: `${unitId}/reminder/${c.reminders}`,
          replyTarget: input.replyTarget,
          text: `Reminder: PR #${c.pullRequest} on ${repo} is ready and waiting for a merge or a review.`,
        });
      }
    }
  }

  async function mergeNow(): Promise<UnitOutcome | undefined> {
    inbox.mergeRequested = false;
    const merged = await githubWrites.mergePullRequest({
      repo,
      identity: 'write',
      number: c.pullRequest!,
      expectedHeadSha: c.headSha!,
      effectKey: `${unitId}/merge/${c.headSha}`,
    });
    if (merged.status === 'confirmed') return 'merged';
    notifyPlan({ status: 'merge_refused', reason: merged.reason ?? merged.status });
    return undefined;
  }

  /** A person's review becomes work for a findings round, with their words and line comments. */
  async function takePeoplesReviews(reviews: Array<{ reviewId?: number; actor?: string; state?: string }>): Promise<void> {
    const activity = await github.githubPullActivity({ repo, number: c.pullRequest!, identity: 'read' });
    const ids = new Set(reviews.map((review) => review.reviewId).filter((id) => id !== undefined));
    const bodies = activity.reviews
      .filter((review) => ids.has(review.id) && review.body.trim())
      .map((review) => `${review.author ?? 'someone'} (${review.state.toLowerCase()}): ${review.body}`);
    const comments = activity.reviewComments.map(
      (comment) => `${comment.author ?? 'someone'} on ${comment.path}${comment.line ? `:${comment.line}` : ''}: ${comment.body}`,
    );
    const note =
      [...bodies, ...comments].join('\n') ||
      `${reviews.map((review) => review.actor ?? 'someone').join(', ')} reviewed the PR without comments.`;
    c.work.push({ kind: 'findings', source: 'human', findings: [], note });
    enter('findings');
  }

  let endedBy: string | undefined;
  function failWith(reason: string): UnitOutcome {
    endedBy = reason;
    return 'failed';
  }

  for (;;) {
    const settled = inbox.stopped ? 'stopped' : inbox.terminal?.outcome;
    if (settled) {
      endedBy ??= settled === 'stopped' ? stopWords(inbox.stopped!) : `the pull request was ${settled}`;
      outcome = settled;
      break;
    }
    const people = inbox.apply(c, enter);
    if (people.length > 0 && c.pullRequest) await takePeoplesReviews(people);
    let next: UnitOutcome | undefined;
    if (c.phase === 'coding' || c.phase === 'findings') {
      if (
        c.round > 0 &&
        inbox.quiet() &&
        (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > UNIT_HISTORY_LIMIT / 4)
      ) {
        upsertSearchAttributes([{ key: Phase, value: 'continuation' }]);
        await continueAsNew<typeof shipUnitWorkflow>({ ...input, carry: c });
      }
      next = await codingRound();
    } else if (c.phase === 'review') next = await reviewRound();
    else if (c.phase === 'checks') next = await checksRound();
    else next = await idleRound();
    if (next) {
      outcome = next;
      break;
    }
  }
  return settle(outcome);

  async function settle(final: UnitOutcome): Promise<UnitRecord> {
    enter('settle');
    const base = {
      unitId,
      repo,
      outcome: final,
      rounds: c.round,
      reviews: c.reviews,
      ...(c.pullRequest ? { pullRequest: c.pullRequest } : {}),
      ...(endedBy ? { endedBy } : {}),
    };
    const lastReview = c.lastReview ? `${c.lastReview.verdict} on ${c.lastReview.commitSha.slice(0, 12)}` : undefined;
    const report = unitReport(base, lastReview);
    await statusActivities.deliverReply({ effectKey: `${unitId}/report`, replyTarget: input.replyTarget, text: report });
    if (c.pullRequest)
      await githubWrites.postComment({
        repo,
        identity: 'write',
        number: c.pullRequest,
        body: report,
        effectKey: `${unitId}/report-comment`,
      });
    for (const key of [unitId, `${unitId}/review`]) await workspace.releaseWorkspace({ workspace: { key, network: true } });
    upsertSearchAttributes([{ key: Outcome, value: final }]);
    notifyPlan({ status: 'settled', outcome: final });
    return { ...base, report };
  }
}

function firstLine(text: string): string {
  const line = text.split('\n')[0]?.trim() ?? '';
  return line.length > 100 ? `${line.slice(0, 97)}...` : line;
}

function stopWords(stop: StopInput): string {
  return [stop.by ? `stopped by ${stop.by}` : 'stopped', stop.reason].filter(Boolean).join(': ');
}
