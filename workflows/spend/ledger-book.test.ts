import type { SpendReserveRequest } from '../contracts';
import { LedgerBook, SETTLED_KEPT_MS, UNSTARTED_GRACE_MS } from './ledger-book';

const now = Date.UTC(2026, 2, 10, 12, 0);
const caps = [{ kind: 'repo' as const, id: 'acme/app', dailyUsd: 3 }];
const unit = (holder: string, atLeastUsd = 1): SpendReserveRequest => ({
  holder,
  by: 'plan:acme/app:p',
  kind: 'unit',
  atLeastUsd,
  scope: { person: 'ada', repo: 'acme/app', agent: 'ship' },
  caps,
  threadId: 'plan:acme/app:p/x',
});
const nothingSpent = { spent: {}, byHolder: {} };

describe('the ledger book', () => {
  it('holds only as many rounds as the cap funds, one reservation per holder however often it asks', () => {
    const book = new LedgerBook();
    const verdicts = ['a', 'b', 'c', 'd'].map((key) => book.reserve(unit(`unit:acme/app:p-${key}`), nothingSpent, now));
    expect(verdicts.map((verdict) => verdict.kind)).toEqual(['admit', 'admit', 'admit', 'refuse']);
    // Asking again (a retried start, a reset starter) replaces the hold, never doubles it.
    expect(book.reserve(unit('unit:acme/app:p-a'), nothingSpent, now + 1)).toMatchObject({ kind: 'admit', held: 1 });
    expect(book.holds.map((hold) => hold.holder)).toEqual(['unit:acme/app:p-a', 'unit:acme/app:p-b', 'unit:acme/app:p-c']);
    expect(book.holds.find((hold) => hold.holder === 'unit:acme/app:p-a')?.since).toBe(now);
  });

  it("counts a holder's runs at least at its reservation, and at what they spent past it", () => {
    const book = new LedgerBook();
    book.reserve(unit('unit:acme/app:p-a'), nothingSpent, now);
    // a's runs spent $1.50 (past its round): $1.50 committed, so $1.50 is left: one more round.
    const sums = { spent: { repo: 0 }, byHolder: { 'unit:acme/app:p-a': 1.5 } };
    expect(book.reserve(unit('unit:acme/app:p-b'), sums, now).kind).toBe('admit');
    expect(book.reserve(unit('unit:acme/app:p-c'), sums, now)).toMatchObject({ kind: 'refuse', spentUsd: 1.5, reservedUsd: 1 });
  });

  it('releases to what was spent, counted until visibility lists the runs', () => {
    const book = new LedgerBook();
    book.reserve(unit('unit:acme/app:p-a'), nothingSpent, now);
    book.reserve(unit('unit:acme/app:p-b'), nothingSpent, now);
    book.reserve(unit('unit:acme/app:p-c'), nothingSpent, now);
    expect(book.release({ holder: 'unit:acme/app:p-a', spentUsd: 0.25 }, now)).toBe(true);
    expect(book.holderIds()).toContain('unit:acme/app:p-a');
    expect(book.reserve(unit('unit:acme/app:p-d'), nothingSpent, now)).toMatchObject({ kind: 'refuse', spentUsd: 0.25, reservedUsd: 2 });
    expect(book.reserve(unit('unit:acme/app:p-d', 0.75), nothingSpent, now).kind).toBe('admit');
    // Ten minutes on, the settled holder's runs are Temporal's to count again.
    book.release({ holder: 'unit:acme/app:p-b' }, now + SETTLED_KEPT_MS);
    expect(book.settled).toEqual([]);
  });

  it('a sweep releases what closed holders hold, and what never-started ones hold past the grace', () => {
    const book = new LedgerBook();
    book.reserve(unit('unit:acme/app:p-a'), nothingSpent, now);
    book.reserve(unit('unit:acme/app:p-b'), nothingSpent, now);
    book.reserve(unit('unit:acme/app:p-c'), nothingSpent, now);
    expect(book.swept({ closed: ['unit:acme/app:p-a'], missing: ['unit:acme/app:p-b'] }, now + 1_000)).toEqual(['unit:acme/app:p-a']);
    expect(book.swept({ closed: [], missing: ['unit:acme/app:p-b'] }, now + UNSTARTED_GRACE_MS)).toEqual(['unit:acme/app:p-b']);
    expect(book.state()).toMatchObject({ sweptHolders: 2, sweptAt: now + UNSTARTED_GRACE_MS, holds: [{ holder: 'unit:acme/app:p-c' }] });
    // What a book carried over continue-as-new is the same book.
    expect(new LedgerBook(book.state()).state()).toEqual(book.state());
  });

  it('holds nothing where no daily cap applies', () => {
    const book = new LedgerBook();
    const perRun = { ...unit('run:thread:x:1'), kind: 'run' as const, caps: [{ kind: 'person' as const, id: 'ada', runUsd: 2 }] };
    expect(book.reserve(perRun, nothingSpent, now)).toEqual({
      kind: 'admit',
      runCap: { usd: 2, boundedBy: 'the $2.00 per-run cap of person ada' },
    });
    expect(book.holds).toEqual([]);
  });
});
