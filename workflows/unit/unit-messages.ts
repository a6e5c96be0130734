import {
  checksSignal,
  failure,
  prEventSignal,
  type PlanUnitProgress,
  type PlanUnitUpdate,
  type ShipUnitInput,
  type SteerInput,
  type StopInput,
  type UnitCarry,
  type UnitChecksEvent,
  type UnitPullRequestEvent,
} from '../contracts';
import type { Unit } from './unit';

/** What the unit's message handlers do outside its state, handed in by the workflow. */
export interface UnitMessagePorts {
  /** Signals `stop` to the unit's running child (fire and forget: a run that has ended cannot take it). */
  stopRun(runId: string, reason: string): void;
  /** Drops a well-formed signal the unit's state refuses, counted in its details (InputGuard.drop). */
  drop(name: string, problem: string): void;
}

/**
 * The unit's signal and update handlers, each a few lines over its inbox: the workflow registers
 * them (behind the input guard) and applies the inbox at phase boundaries. Plain class: unit
 * tests drive it without a server.
 */
export class UnitMessages {
  constructor(
    private readonly unit: Unit,
    private readonly ports: UnitMessagePorts,
  ) {}

  steer(steer: SteerInput): void {
    this.unit.inbox.steer(steer);
  }

  /** The `steer` update: taken like the signal, and accepted. */
  steerAccepted(steer: SteerInput): { accepted: true } {
    this.unit.inbox.steer(steer);
    return { accepted: true as const };
  }

  /** The `steer` update's validator: a settled unit refuses it. */
  refuseSteerOnceSettled(): void {
    if (this.unit.outcome) throw failure('steer_rejected', `the unit has settled (${this.unit.outcome})`);
  }

  /** A stop (a person, the unit's plan, a cancellation): the unit settles, and its running child is stopped now. */
  stop(stop: StopInput | undefined): void {
    this.unit.inbox.stop(stop ?? {});
    this.stopCurrentRun(stop?.reason ?? 'the unit was stopped');
  }

  /** A pull request event of the unit's PR; a merge or close stops its running child. */
  prEvent(event: UnitPullRequestEvent): void {
    const elsewhere = otherPullRequest(event, this.unit.repo, this.unit.carry.pullRequest);
    if (elsewhere) return this.ports.drop(prEventSignal.name, elsewhere);
    const { inbox } = this.unit;
    inbox.prEvent(event);
    if (inbox.terminal) this.stopCurrentRun(`the pull request was ${inbox.terminal.outcome}`);
  }

  checks(event: UnitChecksEvent): void {
    const elsewhere = otherPullRequest(event, this.unit.repo, this.unit.carry.pullRequest);
    if (elsewhere) return this.ports.drop(checksSignal.name, elsewhere);
    this.unit.inbox.checks(event);
  }

  merge(): void {
    this.unit.inbox.requestMerge();
  }

  private stopCurrentRun(reason: string): void {
    if (this.unit.currentRun) this.ports.stopRun(this.unit.currentRun, reason);
  }
}

/** Why an event for another repository or pull request than the unit's is not its to take (undefined: it is). */
export function otherPullRequest(
  event: { repo: string; number: number },
  repo: string,
  pullRequest: number | undefined,
): string | undefined {
  if (event.repo.toLowerCase() !== repo.toLowerCase()) return `it is for ${event.repo}, and this unit works on ${repo}`;
  if (pullRequest !== undefined && event.number !== pullRequest)
    return `it is for #${event.number}, and this unit's pull request is #${pullRequest}`;
  return undefined;
}

/** The `unitUpdate` a unit of a plan sends its plan: how it is doing, with its PR, head and spend (undefined: it has no plan). */
export function planUpdate(
  input: Pick<ShipUnitInput, 'plan' | 'unitId'>,
  carry: Pick<UnitCarry, 'pullRequest' | 'headSha' | 'spentUsd'>,
  progress: PlanUnitProgress,
): PlanUnitUpdate | undefined {
  if (!input.plan) return undefined;
  const { status, ...extra } = progress;
  return {
    key: input.plan.key,
    unitId: input.unitId,
    status,
    pullRequest: carry.pullRequest,
    headSha: carry.headSha,
    ...(carry.spentUsd !== undefined ? { spentUsd: carry.spentUsd } : {}),
    ...extra,
  } as PlanUnitUpdate;
}
