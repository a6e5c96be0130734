import type { ApplicableCap, SpendScopeKind } from '../contracts/spend';
import { reserveVerdict, spendDay, type Committed } from '../../agents/spend-caps';
import type { SpendHold, SpendLedgerState, SpendRelease, SpendReservation, SpendReserveRequest, SpendSettled } from '../contracts';

/** How long a holder that released is counted at what it said it spent: visibility lists its runs well before. */
export const SETTLED_KEPT_MS = 10 * 60_000;
/** A holder that does not exist (yet) keeps its reservation this long: its starter reserves first, then starts it. */
export const UNSTARTED_GRACE_MS = 2 * 60_000;

/** Money spent today, from Temporal (activities/spend `sumSpends`): by runs under no holder the ledger knows, and by each holder's runs. */
export interface SpendSums {
  spent: Partial<Record<SpendScopeKind, number>>;
  byHolder: Record<string, number>;
}

/** What a look at the holders found: those that have closed, and those that do not exist. */
export interface HolderLook {
  closed: string[];
  missing: string[];
}

/**
 * The ledger's books, as a plain class (the workflow holds one; unit tests drive it without a
 * server): money held for work in progress, one reservation per holder, and holders that released
 * recently with what they spent. A start is decided against what each capped scope spent today
 * (runs under a holder count at least at the holder's reservation) plus what is reserved.
 */
export class LedgerBook {
  readonly holds: SpendHold[];
  readonly settled: SpendSettled[];
  sweptHolders: number;
  sweptAt?: number;

  constructor(carry?: SpendLedgerState) {
    this.holds = [...(carry?.holds ?? [])];
    this.settled = [...(carry?.settled ?? [])];
    this.sweptHolders = carry?.sweptHolders ?? 0;
    if (carry?.sweptAt !== undefined) this.sweptAt = carry.sweptAt;
  }

  /** Every holder whose runs the ledger counts itself (its own reservation, or what it said it spent). */
  holderIds(): string[] {
    return [...new Set([...this.holds.map((hold) => hold.holder), ...this.settled.map((entry) => entry.holder)])];
  }

  /** The request's daily caps: what `sumSpends` must sum (none: nothing to reserve against). */
  dailyCaps(request: Pick<SpendReserveRequest, 'caps'>): ApplicableCap[] {
    return request.caps.filter((cap) => cap.dailyUsd !== undefined);
  }

  /**
   * Admit and hold, or refuse. The holder's earlier reservation is replaced (a unit's next round
   * asks for what it spent plus a round), so asking twice never holds twice; a refusal leaves an
   * earlier reservation as it was.
   */
  reserve(request: SpendReserveRequest, sums: SpendSums, now: number): SpendReservation {
    this.prune(now);
    const verdict = reserveVerdict(request.caps, this.committed(request, sums, now), request, now);
    if (verdict.kind !== 'admit' || !verdict.runCap || this.dailyCaps(request).length === 0) return verdict;
    const earlier = this.holds.findIndex((hold) => hold.holder === request.holder);
    const hold: SpendHold = {
      holder: request.holder,
      kind: request.kind,
      by: request.by,
      scope: request.scope,
      caps: request.caps,
      threadId: request.threadId,
      usd: verdict.runCap.usd,
      boundedBy: verdict.runCap.boundedBy,
      since: earlier >= 0 ? this.holds[earlier].since : now,
      at: now,
    };
    if (earlier >= 0) this.holds.splice(earlier, 1, hold);
    else this.holds.push(hold);
    return { ...verdict, held: hold.usd };
  }

  /** The holder settled: its reservation goes; what it spent (when it says) counts until visibility lists its runs. */
  release(release: SpendRelease, now: number): boolean {
    const index = this.holds.findIndex((hold) => hold.holder === release.holder);
    const hold = index >= 0 ? this.holds.splice(index, 1)[0] : undefined;
    const known = this.settled.findIndex((entry) => entry.holder === release.holder);
    if (known >= 0) this.settled.splice(known, 1);
    if (hold && release.spentUsd !== undefined)
      this.settled.push({
        holder: hold.holder,
        scope: hold.scope,
        caps: hold.caps,
        threadId: hold.threadId,
        usd: release.spentUsd,
        at: now,
      });
    this.prune(now);
    return hold !== undefined;
  }

  /** Releases what closed holders still hold, and what holders that never started hold past the grace. */
  swept(look: HolderLook, now: number): string[] {
    const released: string[] = [];
    for (let index = this.holds.length - 1; index >= 0; index -= 1) {
      const hold = this.holds[index];
      const gone = look.closed.includes(hold.holder) || (look.missing.includes(hold.holder) && now - hold.at >= UNSTARTED_GRACE_MS);
      if (!gone) continue;
      this.holds.splice(index, 1);
      released.push(hold.holder);
    }
    this.sweptHolders += released.length;
    this.sweptAt = now;
    this.prune(now);
    return released;
  }

  state(): SpendLedgerState {
    return {
      holds: this.holds,
      settled: this.settled,
      sweptHolders: this.sweptHolders,
      ...(this.sweptAt !== undefined ? { sweptAt: this.sweptAt } : {}),
    };
  }

  /** Per daily cap of the request: spent today (runs under no other holder, and others' at least what they spent), and reserved. */
  private committed(request: SpendReserveRequest, sums: SpendSums, now: number): Committed {
    const { start } = spendDay(now);
    const committed: Committed = {};
    for (const cap of this.dailyCaps(request)) {
      let spentUsd = sums.spent[cap.kind] ?? 0;
      let reservedUsd = 0;
      for (const hold of this.holds) {
        if (hold.holder === request.holder || !covers(hold, cap)) continue;
        // What the holder spent so far is spent; the rest of its reservation is still held.
        const spentSoFar = sums.byHolder[hold.holder] ?? 0;
        spentUsd += spentSoFar;
        reservedUsd += Math.max(0, hold.usd - spentSoFar);
      }
      for (const entry of this.settled)
        if (entry.holder !== request.holder && entry.at >= start && covers(entry, cap)) spentUsd += entry.usd;
      committed[cap.kind] = { spentUsd, reservedUsd };
    }
    return committed;
  }

  private prune(now: number): void {
    for (let index = this.settled.length - 1; index >= 0; index -= 1)
      if (now - this.settled[index].at >= SETTLED_KEPT_MS) this.settled.splice(index, 1);
  }
}

/** Whether a reservation (or a settled holder) falls under `cap`: its scope names the cap's id. */
function covers(entry: { scope: SpendHold['scope'] }, cap: ApplicableCap): boolean {
  const { scope } = entry;
  switch (cap.kind) {
    case 'person':
      return scope.person === cap.id;
    case 'channel':
      return scope.channel === cap.id;
    case 'repo':
      return scope.repo?.toLowerCase() === cap.id.toLowerCase();
    case 'agent':
      return scope.agent === cap.id;
  }
}
