import type { PlanInput, PlanRecord, PlanState, PlanUnitSpec, PlanUnitState, PlanUnitUpdate, StopInput } from '../contracts';
import { planUnitId } from './plan-failed';
import { isBlocked, mayStart, topologicalOrder } from './plan-graph';
import { NOT_FUNDED } from './plan-start';
import { takeUnitUpdate } from './plan-updates';

/**
 * A plan's state and the decisions of its loop: what its units' updates and a stop change, which
 * unit may start next (in dependency order), which ready unit merges next, and how the plan ends.
 * The workflow keeps the handlers, the waits and the Temporal calls. Plain class: unit tests
 * drive it without a server.
 */
export class PlanProgress {
  readonly units: PlanUnitState[];
  /** Keys in an order where every unit follows its dependencies. */
  readonly order: string[];
  /** Keys in the order their PRs merged. */
  readonly merged: string[] = [];
  stopped?: StopInput;
  /** Something changed since the loop last looked (the loop looks once at the start). */
  changed = true;
  /** Money a unit's settling released may fund a waiting unit: its start is tried again then (or after a while). */
  fundingWanted = false;

  constructor(
    private readonly input: PlanInput,
    readonly mergeAuthority: boolean,
  ) {
    this.units = input.units.map((unit) => ({
      key: unit.key,
      unitId: planUnitId(input, unit.key),
      status: 'waiting',
      dependsOn: unit.dependsOn ?? [],
    }));
    this.order = topologicalOrder(input.units);
  }

  /** The `state` query's answer. */
  state(): PlanState {
    const { units, merged, mergeAuthority } = this;
    return { planId: this.input.planId, mergeAuthority, units, merged, done: units.every(settled) };
  }

  phase(): 'stopping' | 'running' {
    return this.stopped ? 'stopping' : 'running';
  }

  done(): boolean {
    return this.units.every(settled);
  }

  /** Takes a unit's `unitUpdate`; returns why it is not this plan's to take (for the guard to drop), else undefined. */
  take(update: PlanUnitUpdate): string | undefined {
    const dropped = takeUnitUpdate(this.units, this.merged, update);
    if (dropped) return dropped;
    if (update.status === 'settled') this.fundingWanted = true;
    this.changed = true;
    return undefined;
  }

  /** A stop (the first one counts): returns the started units still going, for the workflow to stop. */
  stop(stop: StopInput | undefined): PlanUnitState[] {
    this.stopped ??= stop ?? {};
    this.changed = true;
    return this.units.filter((unit) => unit.status !== 'waiting' && !settled(unit));
  }

  /** The stop each unit of a stopped plan is sent. */
  stopInput(): StopInput {
    return { reason: 'the plan was stopped', ...(this.stopped?.by ? { by: this.stopped.by } : {}) };
  }

  /** A unit waits for money the spend caps could not fund yet. */
  unfunded(): boolean {
    return this.units.some((unit) => unit.status === 'waiting' && unit.note?.startsWith(NOT_FUNDED));
  }

  /** The wait for a change ended: when it timed out, the waiting units' starts are tried again. */
  waited(timedOut: boolean): void {
    this.fundingWanted = timedOut || this.fundingWanted;
  }

  /** A stopped plan starts nothing more: its waiting units are blocked; true once none of its units is still going. */
  blockWaiting(): boolean {
    for (const unit of this.units) if (unit.status === 'waiting') unit.status = 'blocked';
    return this.units.every((unit) => unit.status !== 'running' && unit.status !== 'ready' && unit.status !== 'merging');
  }

  /** Before the starts of a turn: units whose dependency settled without merging are blocked; returns whether unfunded starts are tried again. */
  beginStarts(): boolean {
    for (const unit of this.units) if (isBlocked(unit, this.units)) unit.status = 'blocked';
    const retrying = this.fundingWanted;
    this.fundingWanted = false;
    return retrying;
  }

  /** The unit of `key` when it may start now (an unfunded one only when `retrying`), else undefined. */
  startable(key: string, retrying: boolean): PlanUnitState | undefined {
    const unit = this.unit(key);
    if (!mayStart(unit, this.units, this.mergeAuthority) || (unit.note?.startsWith(NOT_FUNDED) && !retrying)) return undefined;
    return unit;
  }

  /** The seeded unit of `key`. */
  spec(key: string): PlanUnitSpec {
    return this.input.units.find((candidate) => candidate.key === key)!;
  }

  /**
   * With merge authority and no merge in flight: the first ready unit (in dependency order) whose
   * dependencies have all merged, now `merging`. One at a time; undefined when none is.
   */
  nextMerge(): PlanUnitState | undefined {
    if (!this.mergeAuthority || this.units.some((unit) => unit.status === 'merging')) return undefined;
    const next = this.order
      .map((key) => this.unit(key))
      .find((unit) => unit.status === 'ready' && unit.dependsOn.every((key) => this.merged.includes(key)));
    if (next) next.status = 'merging';
    return next;
  }

  /** How the plan ended: stopped; completed (every unit merged, or settled where people merge); else blocked. */
  outcome(): PlanRecord['outcome'] {
    if (this.stopped) return 'stopped';
    const complete = this.units.every((unit) => unit.status === 'merged' || (!this.mergeAuthority && unit.outcome !== undefined));
    return complete ? 'completed' : 'blocked';
  }

  /** One line per unit and PR, as the progress replies of plans without a card say it. */
  progressText(): string {
    return `Plan ${this.input.planId}: ${this.units.map((unit) => `${unit.key} ${unit.status}${unit.pullRequest ? ` (#${unit.pullRequest})` : ''}`).join(', ')}.`;
  }

  finalReport(outcome: PlanRecord['outcome']): string {
    return `Plan ${this.input.planId} ${outcome}. Merged in order: ${this.merged.join(' -> ') || 'none'}.`;
  }

  private unit(key: string): PlanUnitState {
    return this.units.find((candidate) => candidate.key === key)!;
  }
}

function settled(unit: PlanUnitState): boolean {
  return unit.status === 'merged' || unit.status === 'settled' || unit.status === 'blocked';
}
