import type { ApplicableCap } from '../contracts/spend';
import { applicableCaps, RESERVE_DEFAULTS } from '../../agents/spend-caps';
import type { SpendRelease, SpendReservation, SpendReserveRequest } from '../contracts';
import type { Unit, UnitMoney } from './unit';

/**
 * The `patched()` id of a unit that reserves each round's allowance in the spend ledger before it
 * spends, and releases it when it settles (docs/models.md "Reservations"). Only a unit under a
 * daily spend cap asks, so histories without caps carry no marker.
 */
export const UNIT_RESERVES_SPEND = 'unit-reserves-spend';

/** What the unit's money needs from the workflow: the ledger's `reserve` (an activity) and `release` (a signal). */
export interface UnitSpendPorts {
  reserve(request: SpendReserveRequest): Promise<SpendReservation>;
  release(release: SpendRelease): Promise<void>;
}

/**
 * A unit's money under the daily spend caps: before each round it reserves what it spent so far
 * plus a round's allowance (`spend.reserve.unitRoundUsd`), so a round that would pass a cap is
 * never started; settling releases the reservation to what its runs spent. The allowance is
 * reserved accounting: the runs keep their time and turn bounds, and a round that spends more
 * counts at what it spent.
 */
export class UnitSpend implements UnitMoney {
  constructor(
    private readonly unit: Unit,
    private readonly ports: UnitSpendPorts,
  ) {}

  /** Reserves the next round; the refusal's words when the caps cannot fund it (undefined: funded, or nothing is capped). */
  async fundRound(): Promise<string | undefined> {
    const caps = this.caps();
    if (!caps.some((cap) => cap.dailyUsd !== undefined) || !this.unit.ports.patched(UNIT_RESERVES_SPEND)) return undefined;
    const { carry: c, input, unitId } = this.unit;
    const allowance = this.unit.settings.spend?.reserve?.unitRoundUsd ?? RESERVE_DEFAULTS.unitRoundUsd;
    const target = Math.round(((c.spentUsd ?? 0) + allowance) * 1_000_000) / 1_000_000;
    const verdict = await this.ports.reserve({
      holder: unitId,
      by: unitId,
      kind: 'unit',
      atLeastUsd: target,
      upToUsd: target,
      scope: this.scope(),
      caps,
      threadId: input.threadId ?? unitId,
    });
    if (verdict.kind === 'refuse') return `its next round could not be funded: ${verdict.reply.replace(/^Not started: /, '')}`;
    if (verdict.held !== undefined) c.reservedUsd = verdict.held;
    return undefined;
  }

  /** A unit that starts at review (an exact PR) funds its first round there. */
  async fundFirstRound(): Promise<string | undefined> {
    return this.unit.carry.reservedUsd === undefined ? this.fundRound() : undefined;
  }

  /**
   * Settling: the reservation goes, and what the runs spent is what counts. Sent whenever a daily
   * cap applies, so a reservation its starter made (a door, a plan) goes too when the unit ends
   * before its first round.
   */
  async release(): Promise<void> {
    const { carry: c, unitId } = this.unit;
    if (!this.caps().some((cap) => cap.dailyUsd !== undefined) || !this.unit.ports.patched(UNIT_RESERVES_SPEND)) return;
    await this.ports.release({ holder: unitId, spentUsd: c.spentUsd ?? 0, by: unitId });
    delete c.reservedUsd;
  }

  private scope() {
    const { input } = this.unit;
    return {
      person: input.requester.id,
      ...(input.channelId ? { channel: input.channelId } : {}),
      repo: input.repo,
      agent: 'ship',
    };
  }

  private caps(): ApplicableCap[] {
    // A unit whose setup failed funds nothing (it only settles).
    return this.unit.hasSettings ? applicableCaps(this.unit.settings.spend, this.scope()) : [];
  }
}
