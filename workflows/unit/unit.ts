import type { ShipSettings } from '../../activities/agents/agent-setup';
import type { SpendConfig } from '../../infra/config/spend-section';
import type { GitHubActivities, RepoSettingsResult } from '../../activities/github';
import type { Profile } from '../contracts/profile';
import type { GitHubWriteActivities, HostBoundActivities, StatusActivities, UnitWorkspaceActivities } from '../activity-proxies';
import {
  OPEN_FINDINGS_SHOWN,
  stopSignal,
  type PlanUnitProgress,
  type ReplyTarget,
  type RunInput,
  type RunRecord,
  type ShipUnitInput,
  type StopInput,
  type TrackedFinding,
  type UnitCarry,
  type UnitOutcome,
  type UnitPhase,
  type UnitState,
} from '../contracts';
import type { WorkflowClock } from '../run/run-control';
import type { UnitInbox } from './unit-inbox';
import { ANSWERS_FINDINGS, FindingsLedger, trackedPlace } from './findings-ledger';

const MINUTE = 60_000;

/** The activities a unit's phases call (the proxies in the workflow; plain fakes in tests). */
export interface UnitActivities {
  workspace: UnitWorkspaceActivities;
  github: Pick<GitHubActivities, 'pushBranch' | 'githubPullGet' | 'githubCommitChecks' | 'githubPullActivity'>;
  githubWrites: Pick<
    GitHubWriteActivities,
    'openOrUpdatePullRequest' | 'postReview' | 'postComment' | 'mergePullRequest' | 'replyToReviewComment' | 'resolveReviewThread'
  >;
  status: Pick<StatusActivities, 'deliverReply'>;
  /** The checkout's commit, push and release on the queue of the host that holds it (absent: the shared queue). */
  onHost?(queue: string): Pick<HostBoundActivities, 'unitWorkspace' | 'github'>;
}

/** A child run as the unit follows it. */
export interface UnitChildRun {
  result(): Promise<RunRecord>;
  signal(definition: typeof stopSignal, stop: StopInput): Promise<void>;
}

/** The Temporal calls a unit's phases make, handed in by the workflow (the SDK functions themselves). */
export interface UnitPorts extends WorkflowClock {
  /** Starts `agentRunWorkflow` as the unit's child (cancelled with the unit). */
  startRun(workflowId: string, input: RunInput, staticSummary: string): Promise<UnitChildRun>;
  /** The unit entered a phase: the `Phase` search attribute, and its plan's notice. */
  entered(phase: UnitPhase): void;
  /** The unit opened its pull request: the `PullRequest` search attribute. */
  openedPullRequest(number: number): void;
  /**
   * Tells the unit's plan, if it has one, how it is doing (the `unitUpdate` signal). Resolves
   * once the signal was delivered (or failed); callers that go on working need not wait.
   */
  notifyPlan(progress: PlanUnitProgress): Promise<void>;
  /** `patched(id)`: true in new executions, false when replaying a history recorded before the patch. */
  patched(id: string): boolean;
  /** The unit settled: the `Outcome` search attribute. */
  recordOutcome(outcome: UnitOutcome): void;
}

/** A unit's money under the daily spend caps (unit-spend.ts): each round reserved before it is spent, released when it settles. */
export interface UnitMoney {
  /** The refusal's words when the caps cannot fund the next round (undefined: funded, or nothing is capped). */
  fundRound(): Promise<string | undefined>;
  /** The first round of a unit that starts at review. */
  fundFirstRound(): Promise<string | undefined>;
  release(): Promise<void>;
}

/** An agent's resolved profile and system prompt. */
export interface ChosenProfile {
  profile: Profile;
  system: string;
}

export interface UnitSettings {
  ship: ShipSettings;
  coding: ChosenProfile;
  review: ChosenProfile;
  /** The `ship` agent's budget: coding and review minutes together. */
  budgetMinutes: number;
  /** The spend caps and reservations (the `spend` section), when any cap is configured. */
  spend?: SpendConfig;
}

/**
 * One unit lifetime's state, shared by its phases (coding-round.ts, review-round.ts,
 * checks-round.ts, idle-round.ts, settle.ts): the carry that survives continue-as-new, the
 * inbox the signal handlers fill, and what the `state` query shows. Plain class: unit tests
 * build one with fake activities and ports.
 */
export class Unit {
  currentRun?: string;
  nextTimer?: UnitState['nextTimer'];
  outcome?: UnitOutcome;
  endedBy?: string;
  /** The repository's settings (its .switchboard.yml and the deployment's), read when the unit starts (absent: before they were). */
  repository?: RepoSettingsResult;
  /** Its money under the daily spend caps (unit-spend.ts; set by the workflow, absent in unit tests that need none). */
  spend?: UnitMoney;

  constructor(
    readonly input: ShipUnitInput,
    readonly carry: UnitCarry,
    readonly inbox: UnitInbox,
    private readonly chosen: UnitSettings | undefined,
    readonly activities: UnitActivities,
    readonly ports: UnitPorts,
  ) {}

  /** Whether its setup succeeded (its settings are there). */
  get hasSettings(): boolean {
    return this.chosen !== undefined;
  }

  /** The unit's settings; absent only when its setup failed, and then no phase but settle runs. */
  get settings(): UnitSettings {
    if (!this.chosen) throw new Error('the unit has no settings: its setup failed');
    return this.chosen;
  }

  get unitId(): string {
    return this.input.unitId;
  }

  get repo(): string {
    return this.input.repo;
  }

  /** The findings it answers on their threads. */
  get findings(): FindingsLedger {
    return new FindingsLedger(this.carry);
  }

  /** The unit answers each finding on its thread (issue 33); histories recorded before did not. */
  answersFindings(): boolean {
    return this.ports.patched(ANSWERS_FINDINGS);
  }

  /** Where the unit reports: its pull request's conversation once it has one when it converses there, else `replyTarget`. */
  get replyTarget(): ReplyTarget {
    const { input, carry } = this;
    if (input.conversation === 'pull-request' && carry.pullRequest)
      return { kind: 'github', repo: input.repo, pullRequest: carry.pullRequest };
    return input.replyTarget;
  }

  /** Whether it reports on its own pull request (where the final report goes as a comment anyway). */
  get conversesOnPullRequest(): boolean {
    return this.input.conversation === 'pull-request' && this.carry.pullRequest !== undefined;
  }

  enter(phase: UnitPhase): void {
    this.carry.phase = phase;
    this.ports.entered(phase);
  }

  /** Stopped, merged or closed: a function, not a field, since signals change the inbox across every await. */
  halted(): boolean {
    return Boolean(this.inbox.stopped || this.inbox.terminal);
  }

  failWith(reason: string): UnitOutcome {
    return this.endWith('failed', reason);
  }

  /** Ends the unit with `outcome`, saying why in its record and report. */
  endWith(outcome: UnitOutcome, reason: string): UnitOutcome {
    this.endedBy = reason;
    return outcome;
  }

  /** Runs a coding or review child to its end; undefined when it was never started or failed without a record. */
  async runChild(
    kind: 'coding' | 'review',
    chosen: ChosenProfile,
    request: string,
    workspaceKey: string,
    workspaceHost?: string,
    /** The paths in play: the AGENTS.md nearest to each reaches the run first. */
    paths?: string[],
    /** More of the run's input (the open findings a coding round answers). */
    extra: Pick<RunInput, 'findings'> = {},
  ): Promise<RunRecord | undefined> {
    // Stopped (or merged) while the workspace was being prepared: start nothing.
    if (this.halted()) return undefined;
    const { carry, input } = this;
    const workflowId = `${this.unitId}/${kind}-${carry.round + (kind === 'coding' ? 1 : 0)}-${carry.reviews + 1}`;
    this.currentRun = workflowId;
    try {
      const child = await this.ports.startRun(
        workflowId,
        {
          // The request first: it is what the Web UI's input view shows at the top.
          request,
          requester: input.requester,
          threadId: input.threadId ?? this.unitId,
          profile: chosen.profile,
          system: chosen.system,
          context: [],
          replyTarget: this.replyTarget,
          workspaceKey,
          submitsTo: 'unit',
          ...(workspaceHost ? { workspaceHost } : {}),
          ...(paths?.length ? { paths: paths.slice(0, 100) } : {}),
          ...(extra.findings?.length ? { findings: extra.findings } : {}),
        },
        `${kind} run of ${this.unitId}`,
      );
      // A stop that arrived while the child was starting could not reach it yet: send it now.
      if (this.halted()) await child.signal(stopSignal, { reason: this.inbox.stopped?.reason ?? 'the unit is settling' });
      const record = await child.result();
      carry.runMinutes += (record.endedAt - record.startedAt) / MINUTE;
      if (record.cost?.usd) carry.spentUsd = Math.round(((carry.spentUsd ?? 0) + record.cost.usd) * 1_000_000) / 1_000_000;
      // The run's own unconfirmed writes are listed by the unit, where `resend` repairs them.
      for (const write of record.unconfirmed ?? [])
        if (!(carry.uncertain ??= []).some((w) => w.effectKey === write.effectKey)) carry.uncertain.push(write);
      return record;
    } catch {
      return undefined;
    } finally {
      this.currentRun = undefined;
    }
  }

  /** The `state` query's answer. */
  state(): UnitState {
    const { carry } = this;
    return {
      unitId: this.unitId,
      repo: this.repo,
      requester: this.input.requester.id,
      ...(this.input.threadId ? { threadId: this.input.threadId } : {}),
      phase: carry.phase,
      round: carry.round,
      // A unit whose setup failed runs no round.
      maxRounds: this.chosen?.ship.maxRounds ?? 0,
      branch: carry.branch,
      reminders: carry.reminders,
      ...(carry.pullRequest ? { pullRequest: carry.pullRequest } : {}),
      ...(carry.headSha ? { headSha: carry.headSha } : {}),
      ...(carry.lastReview ? { lastReview: carry.lastReview } : {}),
      ...(carry.checks ? { checks: carry.checks } : {}),
      ...(this.nextTimer ? { nextTimer: this.nextTimer } : {}),
      ...(this.currentRun ? { currentRun: this.currentRun } : {}),
      ...(this.outcome ? { outcome: this.outcome } : {}),
      ...(carry.uncertain?.length ? { unconfirmed: carry.uncertain } : {}),
      ...(carry.rerunRounds?.length ? { rerunRounds: carry.rerunRounds } : {}),
      openFindings: openFindings(carry.work, this.findings.open()),
      ...questions(carry),
      ...(this.chosen ? { budget: { spentMinutes: Math.round(carry.runMinutes * 10) / 10, minutes: this.chosen.budgetMinutes } } : {}),
      ...(carry.spentUsd !== undefined || carry.reservedUsd !== undefined
        ? { spend: { spentUsd: carry.spentUsd ?? 0, ...(carry.reservedUsd !== undefined ? { reservedUsd: carry.reservedUsd } : {}) } }
        : {}),
    };
  }
}

/** The findings queued for the next coding round (as work, and tracked), as `unit_inspect` shows them. */
function openFindings(work: UnitCarry['work'], tracked: TrackedFinding[]): NonNullable<UnitState['openFindings']> {
  const queued = work.flatMap((item) => (item.kind === 'findings' ? item.findings : []));
  const all: NonNullable<UnitState['openFindings']>['shown'] = [
    ...queued.map(({ severity, path, line, title }) => ({ severity, path, line, title })),
    ...tracked.map((finding) => ({
      id: finding.id,
      ...(finding.severity ? { severity: finding.severity } : {}),
      ...(finding.path ? { path: finding.path } : {}),
      ...(finding.line ? { line: finding.line } : {}),
      ...(finding.author ? { author: finding.author } : {}),
      title: finding.title,
    })),
  ];
  return { count: all.length, shown: all.slice(0, OPEN_FINDINGS_SHOWN) };
}

/** The questions waiting for a person: a coding run's on a finding's thread, and a handoff's. */
function questions(carry: UnitCarry): Pick<UnitState, 'questions'> {
  const asked = new FindingsLedger(carry).questions().map((finding) => ({
    finding: finding.id,
    ...(trackedPlace(finding) ? { place: trackedPlace(finding) } : {}),
    question: finding.disposition?.text ?? finding.title,
  }));
  if (carry.handoff?.question) asked.push({ question: carry.handoff.question } as (typeof asked)[number]);
  return asked.length ? { questions: asked } : {};
}
