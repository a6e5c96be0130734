import type { AgentSetup } from '../../../activities/agents/agent-setup';
import type { CommitChecks, EffectResult, PullDetail } from '../../../workflows/contracts/github';
import type { CommitResult } from '../../../workflows/contracts/unit-workspace';
import type { Finding } from '../../../workflows/contracts/findings';
import {
  checksSignal,
  mergeSignal,
  prEventSignal,
  steerSignal,
  steerUpdate,
  stopSignal,
  type ShipUnitInput,
  type SteerInput,
  type StopInput,
  type UnitChecksEvent,
  type UnitPullRequestEvent,
  type UnitRecord,
  type UnitState,
} from '../../../workflows/contracts';
import { unitSettings } from '../../../workflows/unit/unit-setup';
import type { Execution, SessionEvent } from '../../../infra/history/events';
import { nextTimer, objectOf, Trace, type ActivityView, type ChildView, type PendingTimer } from './trace';

/** What a review run submitted (tools/submit-review.ts). */
export interface ReviewSubmission {
  verdict: 'approve' | 'request_changes' | 'comment';
  summary: string;
  findings: Finding[];
}

export type UnitItem =
  | { kind: 'run'; at: number; role: 'coding' | 'review'; child: ChildView; review?: ReviewSubmission }
  | { kind: 'commit'; at: number; activity: ActivityView; result?: CommitResult }
  | { kind: 'push'; at: number; activity: ActivityView; result?: EffectResult }
  | { kind: 'pullRequest'; at: number; activity: ActivityView; result?: EffectResult; title?: string }
  | { kind: 'reviewPosted'; at: number; activity: ActivityView; body: string; sha?: string; result?: EffectResult }
  | { kind: 'checks'; at: number; activity: ActivityView; result?: CommitChecks; sha?: string }
  | { kind: 'signal'; at: number; text: string }
  | { kind: 'steer'; at: number; text: string; by?: string }
  | { kind: 'stop'; at: number; reason?: string; by?: string }
  | { kind: 'report'; at: number; text: string; where: 'thread' | 'pull request'; activity: ActivityView }
  | { kind: 'continued'; at: number };

export interface UnitDiff {
  headSha: string;
  base: string;
  url?: string;
  files: PullDetail['files'];
}

export interface UnitRound {
  /** 0: what happened before the first coding round (an exact PR starts at review). */
  round: number;
  items: UnitItem[];
}

export interface UnitSession {
  kind: 'unit';
  workflowId: string;
  open: boolean;
  input?: ShipUnitInput;
  startedAt: number;
  closedAt?: number;
  /** Phases as the unit entered them. */
  timeline: Array<{ phase: string; at: number }>;
  rounds: UnitRound[];
  pullRequest?: number;
  /** The latest diff a review read: the PR's files against its base at `headSha`. */
  diff?: UnitDiff;
  /** Every diff the reviews read, oldest first (one per reviewed head). */
  diffs: UnitDiff[];
  record?: UnitRecord;
  closedStatus?: string;
  failure?: string;
  state?: UnitState;
  maxRounds?: number;
  budgetMinutes?: number;
  /** Minutes the unit's runs have used (the budget counts them). */
  runMinutes: number;
  nextTimer?: PendingTimer & { label: string };
  children: ChildView[];
}

/**
 * A ship unit's session: its phase timeline, each round's coding run, commit, push and pull
 * request, each review with its findings and where it was posted, the checks, the people's
 * steers and stops and PR events where they arrived, the reports, and the record. `state` is
 * the live `state` query's answer for an open unit (it names the timer it waits on).
 */
export function buildUnitSession(
  workflowId: string,
  executions: readonly Execution[],
  options: { state?: UnitState; now?: number } = {},
): UnitSession {
  const session: UnitSession = {
    kind: 'unit',
    workflowId,
    open: true,
    startedAt: 0,
    timeline: [],
    rounds: [],
    diffs: [],
    runMinutes: 0,
    children: [],
  };
  let round: UnitRound = { round: 0, items: [] };
  session.rounds.push(round);
  const push = (item: UnitItem): void => void round.items.push(item);
  const enter = (number: number) => {
    if (number === round.round) return;
    round = session.rounds.find((candidate) => candidate.round === number) ?? { round: number, items: [] };
    if (!session.rounds.includes(round)) session.rounds.push(round);
  };

  executions.forEach((execution, index) => {
    const trace = new Trace(execution.events, execution.runId);
    for (const event of execution.events) readEvent(event, index === 0, trace);
    const timer = nextTimer(trace);
    if (index === executions.length - 1 && timer) session.nextTimer = { ...timer, label: 'a timer fires' };
  });
  if (!session.open) delete session.nextTimer;
  else if (options.state?.nextTimer) {
    const at = Date.parse(options.state.nextTimer.at);
    session.nextTimer = { fireAt: at, startedAt: at, label: options.state.nextTimer.purpose };
  }
  if (options.state) {
    session.state = options.state;
    session.maxRounds ??= options.state.maxRounds;
    session.pullRequest ??= options.state.pullRequest;
  }
  const now = options.now ?? Date.now();
  for (const child of session.children) {
    if (child.record) session.runMinutes += (child.record.endedAt - child.record.startedAt) / 60_000;
    else if (child.state === 'running') session.runMinutes += Math.max(0, now - child.at) / 60_000;
  }
  session.rounds = session.rounds.filter((r) => r.items.length > 0).sort((a, b) => a.round - b.round);
  return session;

  function readEvent(event: SessionEvent, first: boolean, trace: Trace): void {
    switch (event.kind) {
      case 'started': {
        const input = objectOf<ShipUnitInput>(event.input);
        if (!input) return;
        session.input ??= input;
        if (first) {
          session.startedAt = input.carry?.startedAt ?? event.at;
          session.runMinutes = input.carry?.runMinutes ?? 0;
          if (input.carry?.pullRequest) session.pullRequest = input.carry.pullRequest;
        }
        return;
      }
      case 'searchAttributes': {
        const phase = event.values.Phase;
        if (typeof phase === 'string') session.timeline.push({ phase, at: event.at });
        if (typeof event.values.PullRequest === 'number') session.pullRequest = event.values.PullRequest;
        return;
      }
      case 'childInitiated': {
        // The trace was built from the whole execution first: the child's record is already there.
        const child = trace.children.get(event.id)!;
        session.children.push(child);
        const match = /\/(coding|review)-(\d+)-\d+$/.exec(event.workflowId);
        if (!match) return;
        enter(Number(match[2]));
        const review = objectOf<ReviewSubmission>(child.record?.submissions?.submit_review);
        push({ kind: 'run', at: event.at, role: match[1] as 'coding' | 'review', child, ...(review ? { review } : {}) });
        return;
      }
      case 'activityScheduled':
        return readActivity(trace.activities.get(event.id)!);
      case 'signal':
      case 'updateAccepted':
        return readMessage(event);
      case 'cancelRequested':
        push({ kind: 'stop', at: event.at, reason: 'the workflow was cancelled' });
        return;
      case 'closed':
        if (event.status === 'continuedAsNew') return push({ kind: 'continued', at: event.at });
        session.open = false;
        session.closedAt = event.at;
        if (event.status === 'completed' && objectOf<UnitRecord>(event.result)?.outcome) session.record = event.result as UnitRecord;
        else {
          session.closedStatus = event.status;
          if (event.message) session.failure = event.message;
        }
        return;
      default:
        return;
    }
  }

  function readActivity(activity: ActivityView): void {
    const input = objectOf<Record<string, unknown>>(activity.input);
    const at = activity.at;
    const result = activity.result;
    switch (activity.type) {
      case 'loadAgentSetup':
        if (session.input) settingsFrom(objectOf<AgentSetup>(result), session.input);
        return;
      case 'githubPullGet':
        return diffFrom(objectOf<PullDetail>(result));
      case 'commitWorkspace':
        return push({ kind: 'commit', at, activity, ...withResult<CommitResult>(result) });
      case 'pushBranch':
        if (input?.dryRun) return;
        return push({ kind: 'push', at, activity, ...withResult<EffectResult>(result) });
      case 'openOrUpdatePullRequest': {
        const number = objectOf<EffectResult>(result)?.number;
        if (number) session.pullRequest = number;
        return push({
          kind: 'pullRequest',
          at,
          activity,
          ...withResult<EffectResult>(result),
          ...(typeof input?.title === 'string' ? { title: input.title } : {}),
        });
      }
      case 'postReview':
        return push({
          kind: 'reviewPosted',
          at,
          activity,
          body: text(input?.body),
          ...withResult<EffectResult>(result),
          ...(typeof input?.commitSha === 'string' ? { sha: input.commitSha } : {}),
        });
      case 'githubCommitChecks':
        return push({
          kind: 'checks',
          at,
          activity,
          ...withResult<CommitChecks>(result),
          ...(typeof input?.ref === 'string' ? { sha: input.ref } : {}),
        });
      case 'deliverReply':
        return push({ kind: 'report', at, activity, text: text(input?.text), where: 'thread' });
      case 'postComment':
        return push({ kind: 'report', at, activity, text: text(input?.body), where: 'pull request' });
      default:
        return;
    }
  }

  function settingsFrom(setup: AgentSetup | undefined, input: ShipUnitInput): void {
    if (!setup) return;
    try {
      const settings = unitSettings(setup, input);
      session.maxRounds = settings.ship.maxRounds;
      session.budgetMinutes = settings.budgetMinutes;
    } catch {
      // A setup that does not resolve (an agent missing) failed the unit; the record says so.
    }
  }

  function diffFrom(pull: PullDetail | undefined): void {
    if (!pull || !pull.files?.some((file) => file.patch !== undefined)) return;
    const diff = { headSha: pull.headSha, base: pull.baseRef, url: pull.url, files: pull.files };
    session.diff = diff;
    session.diffs = [...session.diffs.filter((known) => known.headSha !== diff.headSha), diff];
  }

  function readMessage(event: Extract<SessionEvent, { kind: 'signal' | 'updateAccepted' }>): void {
    if (event.name === steerSignal.name || event.name === steerUpdate.name) {
      const steer = objectOf<SteerInput>(event.input);
      if (steer?.text) push({ kind: 'steer', at: event.at, text: steer.text, ...(steer.by ? { by: steer.by } : {}) });
    } else if (event.name === stopSignal.name) {
      const stop = objectOf<StopInput>(event.input);
      push({ kind: 'stop', at: event.at, ...(stop?.reason ? { reason: stop.reason } : {}), ...(stop?.by ? { by: stop.by } : {}) });
    } else if (event.name === prEventSignal.name) {
      const pr = objectOf<UnitPullRequestEvent>(event.input);
      if (pr) push({ kind: 'signal', at: event.at, text: describePrEvent(pr) });
    } else if (event.name === checksSignal.name) {
      const checks = objectOf<UnitChecksEvent>(event.input);
      if (checks)
        push({
          kind: 'signal',
          at: event.at,
          text: `CI ${checks.source === 'check_run' ? `check ${checks.name ?? ''}` : 'suite'} on ${checks.headSha.slice(0, 12)}: ${checks.conclusion ?? 'pending'}`,
        });
    } else if (event.name === mergeSignal.name) {
      push({ kind: 'signal', at: event.at, text: 'The plan says: merge now' });
    }
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function withResult<T extends object>(value: unknown): { result?: T } {
  const result = objectOf<T>(value);
  return result ? { result } : {};
}

function describePrEvent(event: UnitPullRequestEvent): string {
  const who = event.actor ? ` by ${event.actor}` : '';
  switch (event.kind) {
    case 'synchronize':
      return `New commits pushed to #${event.number}${event.headSha ? ` (head ${event.headSha.slice(0, 12)})` : ''}${who}`;
    case 'review':
      return `A review on #${event.number}${event.reviewState ? ` (${event.reviewState.toLowerCase()})` : ''}${who}`;
    default:
      return `Pull request #${event.number} ${event.kind}${who}`;
  }
}
