/** Inputs, state and results of `planWorkflow`: a seeded dependency graph of ship units. */
import type { ReplyTarget, Requester } from './run-types';
import type { UnitOutcome } from './unit-types';

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
}

/** The `unitUpdate` signal each unit of the plan sends. */
export interface PlanUnitUpdate {
  key: string;
  unitId: string;
  status: string;
  pullRequest?: number;
  headSha?: string;
  outcome?: UnitOutcome;
  reason?: string;
}

export interface PlanState {
  planId: string;
  mergeAuthority: boolean;
  units: PlanUnitState[];
  /** Keys in the order their PRs merged. */
  merged: string[];
  done: boolean;
}

export interface PlanRecord extends PlanState {
  outcome: 'completed' | 'blocked' | 'stopped';
  report: string;
}
