import type { UnitCarry, UnitPhase } from '../contracts';
import { UnitInbox } from './unit-inbox';

function carry(overrides: Partial<UnitCarry> = {}): UnitCarry {
  return {
    phase: 'idle',
    round: 1,
    branch: 'b',
    work: [],
    reviews: 1,
    postedReviews: [],
    runMinutes: 0,
    reminders: 0,
    startedAt: 0,
    headSha: 'ours',
    ...overrides,
  };
}

describe('UnitInbox', () => {
  it('turns a steer into work for a coding round', () => {
    const state = carry();
    const inbox = new UnitInbox(state);
    const phases: UnitPhase[] = [];
    inbox.steer({ text: '  use the v2 API ', by: 'ada' });
    expect(inbox.interrupting()).toBe(true);
    inbox.apply(state, (phase) => phases.push(phase));
    expect(state.work).toEqual([{ kind: 'steer', text: 'use the v2 API', by: 'ada' }]);
    expect(phases).toEqual(['coding']);
    expect(inbox.quiet()).toBe(true);
  });

  it('holds pushes and reviews while asked to (a unit without its PR yet), and applies them later', () => {
    const state = carry({ phase: 'coding', headSha: undefined });
    const inbox = new UnitInbox(state);
    const phases: UnitPhase[] = [];
    inbox.prEvent({ repo: 'a/b', number: 1, kind: 'synchronize', headSha: 'earlier' });
    inbox.prEvent({ repo: 'a/b', number: 1, kind: 'review', reviewId: 9, reviewState: 'changes_requested', actor: 'switchboard[bot]' });
    expect(inbox.hasPullRequestEvents()).toBe(true);
    expect(inbox.apply(state, (phase) => phases.push(phase), { hold: true })).toEqual([]);
    expect(phases).toEqual([]);
    expect(state.headSha).toBeUndefined();
    // Once the unit has its PR again (and pushed that head itself), its own push is not foreign.
    state.headSha = 'earlier';
    expect(inbox.apply(state, (phase) => phases.push(phase))).toEqual([
      { reviewId: 9, actor: 'switchboard[bot]', state: 'changes_requested' },
    ]);
    expect(phases).toEqual([]);
    expect(inbox.hasPullRequestEvents()).toBe(false);
  });

  it('ignores its own push and sends a foreign push to review', () => {
    const state = carry();
    const inbox = new UnitInbox(state);
    inbox.prEvent({ repo: 'a/b', number: 1, kind: 'synchronize', headSha: 'ours' });
    expect(inbox.interrupting()).toBe(false);
    inbox.prEvent({ repo: 'a/b', number: 1, kind: 'synchronize', headSha: 'theirs', deliveryId: 'd1' });
    const phases: UnitPhase[] = [];
    inbox.apply(state, (phase) => phases.push(phase));
    expect(state.headSha).toBe('theirs');
    expect(phases).toEqual(['review']);
  });

  it('makes merged and closed terminal, and a redelivery does nothing twice', () => {
    const inbox = new UnitInbox(carry());
    inbox.prEvent({ repo: 'a/b', number: 1, kind: 'review', reviewState: 'changes_requested', reviewId: 9, deliveryId: 'same' });
    inbox.prEvent({ repo: 'a/b', number: 1, kind: 'review', reviewState: 'changes_requested', reviewId: 9, deliveryId: 'same' });
    expect(inbox.apply(carry(), () => undefined)).toHaveLength(1);
    inbox.prEvent({ repo: 'a/b', number: 1, kind: 'merged' });
    inbox.prEvent({ repo: 'a/b', number: 1, kind: 'closed' });
    expect(inbox.terminal).toEqual({ outcome: 'merged' });
  });

  it("does not mistake the unit's own review for a person's, nor an approval for changes", () => {
    const inbox = new UnitInbox(carry({ postedReviews: [41] }));
    inbox.prEvent({ repo: 'a/b', number: 1, kind: 'review', reviewState: 'commented', reviewId: 41 });
    inbox.prEvent({ repo: 'a/b', number: 1, kind: 'review', reviewState: 'approved', reviewId: 42 });
    expect(inbox.interrupting()).toBe(false);
  });

  it('remembers checks per head and forgets them once read', () => {
    const inbox = new UnitInbox(carry());
    inbox.checks({ repo: 'a/b', number: 1, headSha: 'h1', source: 'check_run', conclusion: 'success' });
    expect(inbox.checksArrivedFor('h1')).toBe(true);
    expect(inbox.checksArrivedFor('h2')).toBe(false);
    inbox.clearChecks();
    expect(inbox.checksArrivedFor('h1')).toBe(false);
  });
});
