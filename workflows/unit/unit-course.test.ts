import { ChecksRound } from './checks-round';
import { CodingRound } from './coding-round';
import { IdleRound } from './idle-round';
import { ReviewRound } from './review-round';
import { UNIT_HISTORY_LIMIT, UNIT_HOLDS_PR_EVENTS, UnitCourse, type HistoryInfo } from './unit-course';
import { approve, world } from './unit-test-world';

/** A course over a unit of fakes, with the patches it asked. */
function course(options: Parameters<typeof world>[0] = {}) {
  const w = world(options);
  const asked: string[] = [];
  const { ports } = w.unit;
  const patched = ports.patched.bind(ports);
  ports.patched = (id) => {
    asked.push(id);
    return patched(id);
  };
  return { w, course: new UnitCourse(w.unit), asked };
}

const history =
  (historyLength: number, continueAsNewSuggested = false) =>
  (): HistoryInfo => ({ historyLength, continueAsNewSuggested });

describe("the unit's course", () => {
  it('goes on until a stop, a merge or a close settles it, with who stopped it and why', () => {
    const running = course();
    expect(running.course.settled()).toBe(false);
    expect(running.w.unit.outcome).toBeUndefined();

    const stopped = course();
    stopped.w.unit.inbox.stop({ by: 'ada', reason: 'not needed' });
    expect(stopped.course.settled()).toBe(true);
    expect(stopped.w.unit).toMatchObject({ outcome: 'stopped', endedBy: 'stopped by ada: not needed' });

    const merged = course({ carry: { pullRequest: 7 } });
    merged.w.unit.inbox.prEvent({ repo: 'acme/app', number: 7, kind: 'merged' });
    expect(merged.course.settled()).toBe(true);
    expect(merged.w.unit).toMatchObject({ outcome: 'merged', endedBy: 'the pull request was merged' });

    // A reason said before (a run that stopped the unit said why) is kept.
    const said = course();
    said.w.unit.endedBy = 'the coding run asked to stop';
    said.w.unit.inbox.stop({});
    expect(said.course.settled()).toBe(true);
    expect(said.w.unit.endedBy).toBe('the coding run asked to stop');
  });

  it('holds PR events while it has no PR of its own, asking the patch only when there are events to hold', () => {
    const none = course();
    expect(none.course.holdsPullRequestEvents()).toBe(false);
    expect(none.asked).toEqual([]);

    const early = course();
    early.w.unit.inbox.prEvent({ repo: 'acme/app', number: 7, kind: 'synchronize', headSha: 'earlier' });
    expect(early.course.holdsPullRequestEvents()).toBe(true);
    expect(early.asked).toEqual([UNIT_HOLDS_PR_EVENTS]);

    const own = course({ carry: { pullRequest: 7 } });
    own.w.unit.inbox.prEvent({ repo: 'acme/app', number: 7, kind: 'synchronize', headSha: 'theirs' });
    expect(own.course.holdsPullRequestEvents()).toBe(false);
    expect(own.asked).toEqual([]);

    const before = course({ unpatched: [UNIT_HOLDS_PR_EVENTS] });
    before.w.unit.inbox.prEvent({ repo: 'acme/app', number: 7, kind: 'synchronize', headSha: 'earlier' });
    expect(before.course.holdsPullRequestEvents()).toBe(false);
  });

  it('starts its history afresh only at a quiet round boundary, once the history is long or Temporal suggests it', () => {
    const long = history(UNIT_HISTORY_LIMIT / 4 + 1);
    expect(course({ carry: { round: 1 } }).course.continuesAsNew(long)).toBe(true);
    expect(course({ carry: { round: 1, phase: 'findings' } }).course.continuesAsNew(long)).toBe(true);
    expect(course({ carry: { round: 1 } }).course.continuesAsNew(history(10, true))).toBe(true);
    expect(course({ carry: { round: 1 } }).course.continuesAsNew(history(UNIT_HISTORY_LIMIT / 4))).toBe(false);
    // Not before its first round, not in another phase, not with a message waiting.
    expect(course({ carry: { round: 0 } }).course.continuesAsNew(long)).toBe(false);
    for (const phase of ['review', 'checks', 'idle'] as const) {
      let read = false;
      const info = () => ((read = true), long());
      expect(course({ carry: { round: 1, phase } }).course.continuesAsNew(info)).toBe(false);
      expect(read).toBe(false);
    }
    const steered = course({ carry: { round: 1 } });
    steered.w.unit.inbox.steer({ text: 'one more thing' });
    expect(steered.course.continuesAsNew(long)).toBe(false);
    const mergeAsked = course({ carry: { round: 1 } });
    mergeAsked.w.unit.inbox.requestMerge();
    expect(mergeAsked.course.continuesAsNew(long)).toBe(false);
  });

  it('runs the round its phase names: findings are answered by coding, anything after checks idles', () => {
    const phaseRound = (phase: 'coding' | 'findings' | 'review' | 'checks' | 'idle' | 'continuation') =>
      course({ carry: { phase } }).course.round();
    expect(phaseRound('coding')).toBeInstanceOf(CodingRound);
    expect(phaseRound('findings')).toBeInstanceOf(CodingRound);
    expect(phaseRound('review')).toBeInstanceOf(ReviewRound);
    expect(phaseRound('checks')).toBeInstanceOf(ChecksRound);
    expect(phaseRound('idle')).toBeInstanceOf(IdleRound);
    expect(phaseRound('continuation')).toBeInstanceOf(IdleRound);
  });

  it('drives a unit from its request through coding and review to checks, turn by turn, as the workflow loop does', async () => {
    const { w, course: c } = course({
      run: (request) => (request.includes('Review') || request.includes('review') ? approve : { submissions: {} }),
    });
    const phases: string[] = [];
    for (let turn = 0; turn < 2 && !c.settled(); turn++) {
      phases.push(w.unit.carry.phase);
      w.unit.inbox.apply(w.unit.carry, (phase) => w.unit.enter(phase), { hold: c.holdsPullRequestEvents() });
      expect(c.ended(await c.round().run())).toBe(false);
    }
    expect(phases).toEqual(['coding', 'review']);
    expect(w.unit.carry).toMatchObject({ phase: 'checks', round: 1, pullRequest: 7, lastReview: { verdict: 'approve' } });
    expect(w.unit.outcome).toBeUndefined();
  });

  it("ends the loop with a round's outcome, and settles a phase that failed as failed with the reason", () => {
    const { w, course: c } = course();
    expect(c.ended(undefined)).toBe(false);
    expect(w.unit.outcome).toBeUndefined();
    expect(c.ended('out_of_rounds')).toBe(true);
    expect(w.unit.outcome).toBe('out_of_rounds');
    c.failed('an activity failed: boom');
    expect(w.unit).toMatchObject({ outcome: 'failed', endedBy: 'an activity failed: boom' });
  });
});
