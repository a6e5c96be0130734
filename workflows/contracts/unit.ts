/**
 * The contract of `shipUnitWorkflow`: its input, state and result, and the messages it takes
 * (`prEvent`, `checks`, `merge`, the `state` query; `steer` and `stop` are in common.ts).
 * The webhook router, the CLI and the orchestrator's tools import these.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { ReplyTarget, Requester } from './common';
import { integer, nonBlank, nullable, object, oneOf, optional, text, type Shape } from './shape';
import type { UncertainWrite } from './resend';
import type { Finding, FindingSeverity, Handoff, TrackedFinding } from './findings';
import { workflowType } from './workflow-type';

export const UNIT_PHASES = ['coding', 'review', 'findings', 'checks', 'continuation', 'idle', 'settle'] as const;
export type UnitPhase = (typeof UNIT_PHASES)[number];
/**
 * `spend`: its next round could not be funded under the daily spend caps (docs/models.md "Reservations").
 * `handed_off`: a coding run could not finish and said what is done, what is left and what it needs (`submit_handoff`).
 */
export const UNIT_OUTCOMES = [
  'merged',
  'closed',
  'stopped',
  'out_of_rounds',
  'budget',
  'spend',
  'idle_expired',
  'failed',
  'handed_off',
] as const;
export type UnitOutcome = (typeof UNIT_OUTCOMES)[number];

export interface ShipUnitInput {
  /** `unit:<owner>/<repo>:<slug>` or `unit:<owner>/<repo>#<n>`. */
  unitId: string;
  repo: string;
  /** The change asked for (a generated task); absent for an exact PR. */
  request?: string;
  /** An exact pull request to carry (it starts at review). */
  pullRequest?: number;
  /** The thread that asked, for reports (a unit is never its child). */
  threadId?: string;
  replyTarget: ReplyTarget;
  requester: Requester;
  /** The model the unit's runs use, when the request chose one. */
  model?: string;
  /** A budget the request asked for (`budget:<n>`): it narrows the unit's and its runs' budgets, never widens them. */
  budgetMinutes?: number;
  /** An effort the request chose for the unit's runs. */
  effort?: 'low' | 'medium' | 'high';
  /** The Slack channel that asked, for its bounds (budget, model, effort) on the unit's runs. */
  channelId?: string;
  /** The plain issue the change is for: the pull request's body says `Fixes #<issue>`. */
  issue?: number;
  /** Set for a unit of a plan: the plan is told of its progress and holds its merge. */
  plan?: { workflowId: string; key: string; mergeAuthority: boolean };
  /**
   * `pull-request`: once the unit has its pull request it converses there (its runs' cards, ready
   * notices, reminders, its report), as a unit of a plan asked on GitHub does; before that, at
   * `replyTarget`. Absent: always at `replyTarget`.
   */
  conversation?: 'pull-request';
  carry?: UnitCarry;
}

/** Work for the next coding round. */
export type WorkItem =
  | { kind: 'request'; text: string }
  | { kind: 'findings'; source: 'review' | 'human'; findings: Finding[]; note?: string }
  | { kind: 'checks'; detail: string }
  | { kind: 'steer'; text: string; by?: string };

/** A coding round run again because its run lost its work (a command lost with its worker, a run that failed or was cut). */
export interface RerunRound {
  /** The round (1-based) whose work was lost. */
  round: number;
  /** What was lost, in words. */
  reason: string;
  /** The round's review was run again, not the coding round. */
  review?: boolean;
}

/** A posted review the next one builds on: the commit it reviewed and its findings, numbered as posted (bounded). */
export interface EarlierReview {
  commitSha: string;
  findings: Finding[];
}

export interface ReviewSummary {
  verdict: 'approve' | 'request_changes' | 'comment';
  commitSha: string;
  counts: Record<FindingSeverity, number>;
  /** Findings at or above the gate. */
  addressed: number;
  posted: 'confirmed' | 'unconfirmed' | 'refused' | 'not_posted';
}

export interface ChecksState {
  state: 'waiting' | 'success' | 'failure' | 'timed_out';
  headSha: string;
  detail?: string;
  polls: number;
}

/** What survives continue-as-new: the unit's state, never a transcript. */
export interface UnitCarry {
  phase: UnitPhase;
  round: number;
  branch: string;
  base?: string;
  pullRequest?: number;
  headSha?: string;
  work: WorkItem[];
  lastReview?: ReviewSummary;
  reviews: number;
  /** Ids of the reviews the unit posted (their webhooks are not a person's review). */
  postedReviews: number[];
  /** Commits the unit posted a review of (the last 50); absent in carries from before it was kept. */
  reviewedShas?: string[];
  /** The last posted review's commit and findings: the next review says which of them a push resolved. */
  earlier?: EarlierReview;
  checks?: ChecksState;
  runMinutes: number;
  reminders: number;
  startedAt: number;
  /** Each prepared checkout's host queue, by workspace key: its commit, push and release go there. */
  hosts?: Record<string, string>;
  /** At-most-once writes that ended `unconfirmed`, with any operator's resend (absent: none). */
  uncertain?: UncertainWrite[];
  /** Rounds run again because their run lost its work (absent: none). */
  rerunRounds?: RerunRound[];
  /** The findings the unit answers on their threads, and what became of each (absent: none yet, or a unit from before). */
  findings?: TrackedFinding[];
  /** The number of the next finding id (`F<n>`). */
  nextFinding?: number;
  /** A coding run's handoff that asked a person a question: the unit waits for the answer (absent: none). */
  handoff?: Handoff & { round: number };
  /** USD its runs spent (absent: nothing yet, or a carry from before it was kept). */
  spentUsd?: number;
  /** USD it holds reserved in the spend ledger, when a daily cap applies (absent: none). */
  reservedUsd?: number;
}

/** The `prEvent` signal (from the GitHub webhook router). */
export interface UnitPullRequestEvent {
  deliveryId?: string;
  repo: string;
  number: number;
  kind: 'opened' | 'synchronize' | 'closed' | 'merged' | 'review';
  headSha?: string;
  reviewState?: string;
  reviewId?: number;
  actor?: string;
}

/** The shape the unit checks a `prEvent` against. */
export const UNIT_PR_EVENT_SHAPE: Shape = object({
  deliveryId: optional(text()),
  repo: nonBlank(),
  number: integer(1),
  kind: oneOf(['opened', 'synchronize', 'closed', 'merged', 'review']),
  headSha: optional(text()),
  reviewState: optional(text()),
  reviewId: optional(integer(1)),
  actor: optional(text()),
});

/** The `merge` signal (from the unit's plan, when the plan holds merge authority). */
export interface UnitMergeRequest {
  by?: string;
}

/** The shape the unit checks a `merge` against (it may also come with no input). */
export const UNIT_MERGE_SHAPE: Shape = object({ by: optional(text()) });

/** The `checks` signal (a check suite or run completed on a commit). */
export interface UnitChecksEvent {
  deliveryId?: string;
  repo: string;
  number: number;
  headSha: string;
  source: 'check_suite' | 'check_run';
  name?: string;
  conclusion: string | null;
}

/** The shape the unit checks a `checks` signal against. */
export const UNIT_CHECKS_EVENT_SHAPE: Shape = object({
  deliveryId: optional(text()),
  repo: nonBlank(),
  number: integer(1),
  headSha: nonBlank(),
  source: oneOf(['check_suite', 'check_run']),
  name: optional(text()),
  conclusion: nullable(text()),
});

/** The `state` query's answer. */
export interface UnitState {
  unitId: string;
  repo: string;
  /** Who asked for the unit: the person whose linked unit it is. */
  requester: string;
  /** The conversation the unit is linked to (absent: none). */
  threadId?: string;
  phase: UnitPhase;
  round: number;
  maxRounds: number;
  pullRequest?: number;
  headSha?: string;
  branch: string;
  lastReview?: ReviewSummary;
  checks?: ChecksState;
  /** The timer the unit is waiting on, if any. */
  nextTimer?: { purpose: string; at: string };
  currentRun?: string;
  /** Reminders sent while idle. */
  reminders: number;
  outcome?: UnitOutcome;
  /** Writes whose delivery could not be confirmed (see `resend`). */
  unconfirmed?: UncertainWrite[];
  /** Rounds run again because their run lost its work. */
  rerunRounds?: RerunRound[];
  /**
   * Findings waiting for the next coding round (a review's at or above the gate, and people's), at
   * most `OPEN_FINDINGS_SHOWN` of them, with how many there are in all. Absent in states read from
   * units that predate it.
   */
  openFindings?: {
    count: number;
    /** A tracked finding has its `id`; a person's comment has no severity, and one on no line no path. */
    shown: Array<Partial<Pick<Finding, 'severity' | 'path' | 'line'>> & { title: string; id?: string; author?: string }>;
  };
  /** The time budget of the unit's runs: minutes spent so far, of how many (absent before it was reported). */
  budget?: { spentMinutes: number; minutes: number };
  /** Questions a coding run asked on a finding's thread (or in a handoff) that wait for a person's answer (absent: none). */
  questions?: Array<{ finding?: string; place?: string; question: string }>;
  /** USD its runs spent, and what it holds reserved against the daily spend caps (absent: none). */
  spend?: { spentUsd: number; reservedUsd?: number };
}

/** Open findings a unit's state lists one by one (the rest are counted). */
export const OPEN_FINDINGS_SHOWN = 20;

export interface UnitRecord {
  unitId: string;
  repo: string;
  pullRequest?: number;
  outcome: UnitOutcome;
  /** Coding rounds run. */
  rounds: number;
  reviews: number;
  endedBy?: string;
  report: string;
  /** Writes whose delivery could not be confirmed, with any operator's resend (absent: none). */
  unconfirmed?: UncertainWrite[];
  /** Rounds run again because their run lost its work (absent: none). */
  rerunRounds?: RerunRound[];
  /** USD its runs spent (absent: nothing, or a record from before it was kept). */
  spentUsd?: number;
}

/** A PR event from the GitHub webhook router: merged/closed settle, a push re-reviews, a person's review is work. */
export const prEventSignal = defineSignal<[UnitPullRequestEvent]>('prEvent');
/** A check suite or run completed on a commit: wakes the unit's CI wait for that head. */
export const checksSignal = defineSignal<[UnitChecksEvent]>('checks');
/** From the unit's plan, when the plan holds merge authority and the unit's turn has come. */
export const mergeSignal = defineSignal<[UnitMergeRequest]>('merge');
export const unitStateQuery = defineQuery<UnitState>('state');

export type ShipUnitWorkflow = (input: ShipUnitInput) => Promise<UnitRecord>;
/** Started on its own id (`unit:<owner>/<repo>:<slug>` or `unit:<owner>/<repo>#<n>`), never as a thread's child. */
export const shipUnitWorkflowType = workflowType<ShipUnitWorkflow>('shipUnitWorkflow');
