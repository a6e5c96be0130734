import { BOARD_DEFAULTS, cleanEntryText, entryFingerprint } from '../../agents/board';
import type { BoardBookState, BoardBounds, BoardChange, BoardChangeResult, BoardEntry, BoardState } from '../contracts';

/** Retired texts remembered (their fingerprints): a run cannot bring one back. */
export const RETIRED_REMEMBERED = 500;
/** Changes remembered by key, so a retried change answers what it did the first time. */
export const APPLIED_REMEMBERED = 200;
/** Consolidation keys remembered, so the same work is not consolidated twice. */
export const CONSOLIDATED_REMEMBERED = 500;
/** Retired entries still listed (the newest); older ones leave only their fingerprint. */
export const RETIRED_LISTED = 50;

/** A change the board refuses, in words for the person or the run that asked. */
export class BoardRefusal extends Error {}

export function initialBook(bounds?: BoardBounds): BoardBookState {
  return {
    entries: [],
    nextId: 1,
    retiredTexts: [],
    applied: [],
    consolidated: [],
    bounds: bounds ?? { maxEntries: BOARD_DEFAULTS.maxEntries, maxEntryChars: BOARD_DEFAULTS.maxEntryChars },
  };
}

/**
 * A board's entries and rules, as a plain class the workflow holds (unit tests drive it directly).
 * `check` is the update's validator: it throws a `BoardRefusal` for a change the board will not
 * take, before anything is written to history; `apply` then makes it. The rules: every text is
 * one clean line within the bound, credentials redacted; an actor who does not keep only ever
 * proposes; a run never brings back a retired entry (by id or by the same words) nor keeps or
 * retires one itself unless it consolidates a keeper's work; bounded entries, bounded memory.
 */
export class BoardBook {
  constructor(readonly state: BoardBookState) {}

  /** The earlier result of a change with this key, if it was applied before. */
  earlier(change: BoardChange): BoardChangeResult | undefined {
    return change.key ? this.state.applied.find((entry) => entry.key === change.key)?.result : undefined;
  }

  /** Throws a `BoardRefusal` when the board would not take `change` (a repeat of an applied key is always taken). */
  check(change: BoardChange): void {
    if (this.earlier(change)) return;
    this.plan(change, 0);
  }

  /** Applies `change` (checked first) at workflow time `now`; a repeated key answers its first result. */
  apply(change: BoardChange, now: number): BoardChangeResult {
    const earlier = this.earlier(change);
    if (earlier) return earlier;
    const result = this.plan(change, now)();
    if (change.key) {
      this.state.applied.push({ key: change.key, result });
      this.state.applied.splice(0, Math.max(0, this.state.applied.length - APPLIED_REMEMBERED));
    }
    return result;
  }

  /** The entries as the query shows them: every live one, and the newest retired. */
  view(extra: Omit<BoardState, 'entries' | 'bounds'>): BoardState {
    return { ...extra, entries: this.state.entries.map((entry) => ({ ...entry })), bounds: { ...this.state.bounds } };
  }

  /** Takes a consolidation key; false when the same work was consolidated (or asked for) before. */
  takeConsolidation(key: string): boolean {
    if (this.state.consolidated.includes(key)) return false;
    this.state.consolidated.push(key);
    this.state.consolidated.splice(0, Math.max(0, this.state.consolidated.length - CONSOLIDATED_REMEMBERED));
    return true;
  }

  setBounds(bounds: BoardBounds): void {
    this.state.bounds = bounds;
  }

  /** Checks `change` and returns what applying it does (nothing is written until it is called). */
  private plan(change: BoardChange, now: number): () => BoardChangeResult {
    const { actor } = change;
    const person = actor.kind === 'person';
    if (change.action === 'add') {
      const text = this.clean(change.text);
      const same = this.live().find((entry) => entryFingerprint(entry.text) === entryFingerprint(text));
      if (same) return () => this.confirm(same, now, `already on the board as ${same.id}; confirmed it instead`);
      this.refuseRetired(text, person);
      const state = actor.keeps ? 'kept' : 'proposed';
      this.refuseFull(state);
      return () => {
        // A person who adds retired words again brings them back.
        this.forgetRetired(text);
        const entry = this.newEntry(change.kind, text, state, change, now);
        return result(state === 'kept' ? 'added' : 'proposed', entry, state === 'kept' ? 'kept' : 'proposed: a keeper decides');
      };
    }
    const entry = this.find(change.entryId);
    switch (change.action) {
      case 'confirm':
        if (entry.state === 'retired') throw new BoardRefusal(`${entry.id} is retired; only a person brings it back`);
        return () => this.confirm(entry, now, 'confirmed');
      case 'replace': {
        const text = this.clean(change.text);
        if (entry.state === 'retired' && !person) throw new BoardRefusal(`${entry.id} is retired; only a person brings it back`);
        this.refuseRetired(text, person);
        if (!actor.keeps) {
          this.refuseFull('proposed');
          return () => {
            const proposed = this.newEntry(change.kind ?? entry.kind, text, 'proposed', change, now, entry.id);
            return result('proposed', proposed, `proposed as ${proposed.id}, replacing ${entry.id} once a keeper keeps it`);
          };
        }
        return () => {
          Object.assign(entry, { text, kind: change.kind ?? entry.kind, confirmedAt: now, state: 'kept' as const });
          entry.decided = { by: actor.id, at: now };
          return result('replaced', entry, 'replaced and kept');
        };
      }
      case 'keep':
        if (!actor.keeps || !person) throw new BoardRefusal('only a keeper keeps an entry');
        if (entry.state === 'kept') return () => result('unchanged', entry, 'already kept');
        this.refuseFull('kept');
        return () => this.keep(entry, actor.id, now);
      case 'retire':
        if (entry.state === 'retired') return () => result('unchanged', entry, 'already retired');
        if (!actor.keeps) {
          // A run that may not retire flags the entry; a person who may not is refused at the door (agents/admission.ts).
          if (person) throw new BoardRefusal('only a keeper retires an entry');
          return () => {
            entry.flagged = { by: actor.id, at: now, reason: change.reason ?? 'no reason given' };
            return result('flagged', entry, 'flagged for a keeper to retire');
          };
        }
        return () => this.retire(entry, actor.id, now, change.reason);
    }
  }

  private live(): BoardEntry[] {
    return this.state.entries.filter((entry) => entry.state !== 'retired');
  }

  private find(id: string): BoardEntry {
    const entry = this.state.entries.find((candidate) => candidate.id === id.toLowerCase());
    if (!entry) throw new BoardRefusal(`there is no entry ${id} on this board`);
    return entry;
  }

  private clean(text: string): string {
    const cleaned = cleanEntryText(text, this.state.bounds.maxEntryChars);
    if ('problem' in cleaned) throw new BoardRefusal(cleaned.problem);
    return cleaned.text;
  }

  /** A person may bring back what was retired; a run may not (by the same words, whatever the id). */
  private refuseRetired(text: string, person: boolean): void {
    if (!person && this.state.retiredTexts.includes(entryFingerprint(text)))
      throw new BoardRefusal('a person retired an entry with these words; a run does not bring it back');
  }

  private forgetRetired(text: string): void {
    const fingerprint = entryFingerprint(text);
    this.state.retiredTexts = this.state.retiredTexts.filter((known) => known !== fingerprint);
  }

  private refuseFull(state: 'kept' | 'proposed'): void {
    const count = this.state.entries.filter((entry) => entry.state === state).length;
    if (count >= this.state.bounds.maxEntries)
      throw new BoardRefusal(
        state === 'kept'
          ? `the board keeps at most ${this.state.bounds.maxEntries} entries; retire one first`
          : `${count} proposed entries already wait for a keeper; none more until they are kept or retired`,
      );
  }

  private newEntry(
    kind: BoardEntry['kind'],
    text: string,
    state: 'kept' | 'proposed',
    change: BoardChange,
    now: number,
    replaces?: string,
  ): BoardEntry {
    const { actor } = change;
    const entry: BoardEntry = {
      id: `b${this.state.nextId++}`,
      text,
      kind,
      state,
      source: {
        via: actor.kind,
        by: actor.kind === 'agent' ? (actor.onBehalfOf ?? actor.id) : actor.id,
        ...(actor.kind === 'agent' ? { runId: actor.id } : {}),
        ...(actor.onBehalfOf ? { onBehalfOf: actor.onBehalfOf } : {}),
      },
      createdAt: now,
      confirmedAt: now,
      ...(replaces ? { replaces } : {}),
      ...(state === 'kept' ? { decided: { by: actor.id, at: now } } : {}),
    };
    this.state.entries.push(entry);
    return entry;
  }

  private confirm(entry: BoardEntry, now: number, message: string): BoardChangeResult {
    entry.confirmedAt = now;
    return result('confirmed', entry, message);
  }

  private keep(entry: BoardEntry, by: string, now: number): BoardChangeResult {
    const wasRetired = entry.state === 'retired';
    entry.state = 'kept';
    entry.confirmedAt = now;
    entry.decided = { by, at: now };
    delete entry.flagged;
    if (wasRetired) this.forgetRetired(entry.text);
    // A kept replacement retires the entry it replaces.
    const replaced = entry.replaces ? this.state.entries.find((candidate) => candidate.id === entry.replaces) : undefined;
    if (replaced && replaced.state !== 'retired') this.retire(replaced, by, now, `replaced by ${entry.id}`);
    return result('kept', entry, wasRetired ? 'brought back and kept' : 'kept');
  }

  private retire(entry: BoardEntry, by: string, now: number, reason?: string): BoardChangeResult {
    entry.state = 'retired';
    entry.decided = { by, at: now, ...(reason ? { reason } : {}) };
    delete entry.flagged;
    const fingerprint = entryFingerprint(entry.text);
    if (!this.state.retiredTexts.includes(fingerprint)) this.state.retiredTexts.push(fingerprint);
    this.state.retiredTexts.splice(0, Math.max(0, this.state.retiredTexts.length - RETIRED_REMEMBERED));
    // The oldest retired entries leave the list (their words stay remembered).
    const retired = this.state.entries.filter((candidate) => candidate.state === 'retired');
    const drop = new Set(retired.slice(0, Math.max(0, retired.length - RETIRED_LISTED)).map((candidate) => candidate.id));
    this.state.entries = this.state.entries.filter((candidate) => !drop.has(candidate.id));
    return result('retired', entry, 'retired');
  }
}

function result(effect: BoardChangeResult['effect'], entry: BoardEntry, message: string): BoardChangeResult {
  return { effect, entry: { ...entry }, message: `${entry.id} ${message}` };
}
