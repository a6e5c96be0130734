import type { BoardActor, BoardChange } from '../contracts';
import { BoardBook, BoardRefusal, initialBook, RETIRED_LISTED } from './board-book';

const keeper: BoardActor = { kind: 'person', id: 'github:alice', keeps: true };
const stranger: BoardActor = { kind: 'person', id: 'slack:U9', keeps: false };
const trustedRun: BoardActor = { kind: 'agent', id: 'board:acme/app/rem-1', keeps: true, onBehalfOf: 'github:alice' };
const strangerRun: BoardActor = { kind: 'agent', id: 'board:acme/app/rem-2', keeps: false, onBehalfOf: 'slack:U9' };

const book = () => new BoardBook(initialBook({ maxEntries: 3, maxEntryChars: 80 }));
const add = (actor: BoardActor, text: string, key?: string): BoardChange => ({
  action: 'add',
  actor,
  kind: 'convention',
  text,
  ...(key ? { key } : {}),
});
const refused = (b: BoardBook, change: BoardChange) => {
  try {
    b.check(change);
  } catch (error) {
    if (error instanceof BoardRefusal) return error.message;
    throw error;
  }
  return undefined;
};

describe('BoardBook', () => {
  it("a keeper's and a keeper's run's additions are kept; a stranger's, and a run on a stranger's work, stay proposed", () => {
    const b = book();
    expect(b.apply(add(keeper, 'Money is integer cents.'), 1).entry).toMatchObject({ id: 'b1', state: 'kept' });
    expect(b.apply(add(trustedRun, 'Run make db before the integration tests.'), 2).entry).toMatchObject({
      id: 'b2',
      state: 'kept',
      source: { via: 'agent', by: 'github:alice', runId: 'board:acme/app/rem-1' },
    });
    expect(b.apply(add(stranger, 'Tabs, not spaces.'), 3).effect).toBe('proposed');
    expect(b.apply(add(strangerRun, 'The e2e suite needs PORT unset.'), 4).entry).toMatchObject({ state: 'proposed' });
  });

  it('a run never keeps: keeping is a person’s, and only a keeper’s', () => {
    const b = book();
    b.apply(add(strangerRun, 'Use pnpm.'), 1);
    expect(refused(b, { action: 'keep', entryId: 'b1', actor: trustedRun })).toBe('only a keeper keeps an entry');
    expect(refused(b, { action: 'keep', entryId: 'b1', actor: stranger })).toBe('only a keeper keeps an entry');
    expect(b.apply({ action: 'keep', entryId: 'b1', actor: keeper }, 5).entry).toMatchObject({
      state: 'kept',
      decided: { by: 'github:alice', at: 5 },
    });
  });

  it('a retired entry never comes back without a person: not by its id, not by the same words', () => {
    const b = book();
    b.apply(add(keeper, 'Deploys go out on Fridays.'), 1);
    b.apply({ action: 'retire', entryId: 'b1', actor: keeper, reason: 'not any more' }, 2);
    expect(refused(b, add(trustedRun, 'deploys go OUT on fridays!'))).toMatch(/a person retired an entry with these words/);
    expect(refused(b, { action: 'confirm', entryId: 'b1', actor: trustedRun })).toMatch(/retired; only a person/);
    expect(refused(b, { action: 'replace', entryId: 'b1', text: 'Deploys on Fridays.', actor: trustedRun })).toMatch(/retired/);
    // A person brings it back; then a run may confirm it.
    expect(b.apply({ action: 'keep', entryId: 'b1', actor: keeper }, 3).message).toBe('b1 brought back and kept');
    expect(b.apply({ action: 'confirm', entryId: 'b1', actor: trustedRun }, 4).effect).toBe('confirmed');
  });

  it('a run on a stranger’s work flags an entry instead of retiring it; a stranger is refused', () => {
    const b = book();
    b.apply(add(keeper, 'Node 18.'), 1);
    expect(b.apply({ action: 'retire', entryId: 'b1', actor: strangerRun, reason: 'the CI moved to Node 20' }, 2)).toMatchObject({
      effect: 'flagged',
      entry: { state: 'kept', flagged: { reason: 'the CI moved to Node 20' } },
    });
    expect(refused(b, { action: 'retire', entryId: 'b1', actor: stranger })).toBe('only a keeper retires an entry');
  });

  it('a replacement from a stranger’s work is proposed, and keeping it retires what it replaces', () => {
    const b = book();
    b.apply(add(keeper, 'Node 18.'), 1);
    expect(b.apply({ action: 'replace', entryId: 'b1', text: 'Node 20.', actor: strangerRun }, 2).entry).toMatchObject({
      id: 'b2',
      state: 'proposed',
      replaces: 'b1',
    });
    b.apply({ action: 'keep', entryId: 'b2', actor: keeper }, 3);
    expect(b.state.entries.map((entry) => [entry.id, entry.state])).toEqual([
      ['b1', 'retired'],
      ['b2', 'kept'],
    ]);
  });

  it('texts are one clean line within the bound, with credentials redacted and no markup', () => {
    const b = book();
    const token = `ghp_${'A1'.repeat(18)}`;
    const entry = b.apply(add(trustedRun, `Push with\n${token} </board-entries> then <b>go</b>`), 1).entry;
    expect(entry.text).toBe('Push with [redacted] ‹/board-entries› then ‹b›go‹/b›');
    expect(refused(b, add(keeper, 'x'.repeat(81)))).toMatch(/at most 80 characters \(this one has 81\)/);
    expect(refused(b, add(keeper, ' \n\t '))).toBe('an entry needs some text');
  });

  it('is bounded: kept and proposed entries each to maxEntries, retired ones listed to a limit', () => {
    const b = book();
    for (const n of [1, 2, 3]) b.apply(add(keeper, `fact ${n}`), n);
    expect(refused(b, add(keeper, 'fact 4'))).toMatch(/keeps at most 3 entries/);
    for (const n of [1, 2, 3]) b.apply(add(strangerRun, `proposal ${n}`), n);
    expect(refused(b, add(strangerRun, 'proposal 4'))).toMatch(/3 proposed entries already wait/);

    const many = new BoardBook(initialBook({ maxEntries: 100, maxEntryChars: 80 }));
    for (let n = 1; n <= RETIRED_LISTED + 5; n += 1) {
      many.apply(add(keeper, `old ${n}`), n);
      many.apply({ action: 'retire', entryId: `b${n}`, actor: keeper }, n);
    }
    expect(many.state.entries).toHaveLength(RETIRED_LISTED);
    // The dropped ones' words are still known.
    expect(refused(many, add(trustedRun, 'old 1'))).toMatch(/retired/);
  });

  it('a change repeated with its key answers its first result and changes nothing more', () => {
    const b = book();
    const first = b.apply(add(trustedRun, 'Use pnpm.', 'run-1/context_board/1.0'), 1);
    expect(b.apply(add(trustedRun, 'Use pnpm.', 'run-1/context_board/1.0'), 9)).toEqual(first);
    expect(b.state.entries).toHaveLength(1);
    // The same words without the key confirm the entry instead of adding another.
    expect(b.apply(add(trustedRun, 'use pnpm'), 10)).toMatchObject({ effect: 'confirmed', entry: { id: 'b1', confirmedAt: 10 } });
  });

  it('an unknown entry is refused by name', () => {
    expect(refused(book(), { action: 'confirm', entryId: 'b42', actor: trustedRun })).toBe('there is no entry b42 on this board');
  });
});
