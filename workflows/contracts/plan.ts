/**
 * The contract of `planWorkflow`, a seeded dependency graph of ship units: its input, state
 * and result, the `unitUpdate` protocol its units speak, and the `state` query (`stop` is in
 * common.ts).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { ReplyTarget, Requester } from './common';
import type { UncertainWrite } from './resend';
import { decimal, integer, nonBlank, optional, text, variants, type Fields, type Shape } from './shape';
import { UNIT_OUTCOMES, UNIT_PHASES, type UnitOutcome, type UnitPhase } from './unit';
import { workflowType } from './workflow-type';

export interface PlanUnitSpec {
  /** Short name, unique in the plan (`api`, `client`). */
  key: string;
  request: string;
  dependsOn?: string[];
}

export interface PlanInput {
  /** `plan:<owner>/<repo>:<slug>`. */
  planId: string;
  repo: string;
  units: PlanUnitSpec[];
  replyTarget: ReplyTarget;
  requester: Requester;
  threadId?: string;
  model?: string;
  /** Overrides `plan.mergeAuthority`. */
  mergeAuthority?: boolean;
}

export type PlanUnitStatus = 'waiting' | 'running' | 'ready' | 'merging' | 'merged' | 'settled' | 'blocked';

export interface PlanUnitState {
  key: string;
  unitId: string;
  status: PlanUnitStatus;
  dependsOn: string[];
  pullRequest?: number;
  outcome?: UnitOutcome;
  /** The phase the unit said it entered last (while it runs). */
  phase?: string;
  /** USD its runs spent, as it last said. */
  spentUsd?: number;
  /** Why a waiting unit has not started (its first round not funded under the daily spend caps), or why it ended before starting. */
  note?: string;
  /** Its own conversation, when the plan opened one (a Slack thread of its own). */
  conversation?: ReplyTarget;
}

/** What every `unitUpdate` carries: which unit of the plan, and its PR as far as it got. */
interface PlanUnitUpdateBase {
  /** The unit's key in the plan. */
  key: string;
  unitId: string;
  pullRequest?: number;
  headSha?: string;
  /** USD the unit's runs have spent so far (absent: nothing, or a unit from before it was said). */
  spentUsd?: number;
}

/**
 * The `unitUpdate` signal a unit of a plan sends, discriminated by `status`: the phase it
 * entered, `ready` (idle with a PR that may merge), `merge_refused` (the plan's merge did not
 * happen, with why), or `settled` with the unit's outcome.
 */
export type PlanUnitUpdate = PlanUnitUpdateBase & PlanUnitProgress;

export type PlanUnitProgress =
  { status: UnitPhase } | { status: 'ready' } | { status: 'merge_refused'; reason: string } | { status: 'settled'; outcome: UnitOutcome };

const UPDATE_BASE: Fields = {
  key: nonBlank(),
  unitId: nonBlank(),
  pullRequest: optional(integer(1)),
  headSha: optional(text()),
  spentUsd: optional(decimal(0)),
};

/** The shape the plan checks a `unitUpdate` against: the fields its `status` needs. */
export const PLAN_UNIT_UPDATE_SHAPE: Shape = variants('status', {
  ...Object.fromEntries(UNIT_PHASES.map((phase) => [phase, UPDATE_BASE])),
  ready: UPDATE_BASE,
  merge_refused: { ...UPDATE_BASE, reason: text() },
  settled: { ...UPDATE_BASE, outcome: { kind: 'literal', values: UNIT_OUTCOMES } },
});

export interface PlanState {
  planId: string;
  mergeAuthority: boolean;
  units: PlanUnitState[];
  /** Keys in the order their PRs merged. */
  merged: string[];
  done: boolean;
}

export interface PlanRecord extends PlanState {
  /** `failed`: the plan could not start (an unsound graph, its setup failing); `endedBy` says why. */
  outcome: 'completed' | 'blocked' | 'stopped' | 'failed';
  /** Why a failed plan ended. */
  endedBy?: string;
  report: string;
  /** Replies whose delivery could not be confirmed, with any operator's resend (absent: none). */
  unconfirmed?: UncertainWrite[];
}

/** From each unit of the plan: its progress, so the plan starts dependants and merges in order. */
export const unitUpdateSignal = defineSignal<[PlanUnitUpdate]>('unitUpdate');
export const planStateQuery = defineQuery<PlanState>('state');

export type PlanWorkflow = (input: PlanInput) => Promise<PlanRecord>;
/** Started on `plan:<owner>/<repo>:<slug>`. */
export const planWorkflowType = workflowType<PlanWorkflow>('planWorkflow');
