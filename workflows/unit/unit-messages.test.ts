import { world } from './unit-test-world';
import { planUpdate, UnitMessages } from './unit-messages';

/** The unit's handlers over a unit of fakes, with what they stopped and dropped. */
function handlers(carry: NonNullable<Parameters<typeof world>[0]>['carry'] = {}) {
  const w = world({ carry });
  const stopped: Array<[string, string]> = [];
  const dropped: Array<[string, string]> = [];
  const messages = new UnitMessages(w.unit, {
    stopRun: (runId, reason) => stopped.push([runId, reason]),
    drop: (name, problem) => dropped.push([name, problem]),
  });
  return { w, messages, stopped, dropped };
}

describe("the unit's messages", () => {
  it('takes a steer (signal or update) into its inbox, and refuses the update once the unit settled', () => {
    const { w, messages } = handlers();
    messages.steer({ text: 'use the v2 API', by: 'ada' });
    expect(w.unit.inbox.interrupting()).toBe(true);
    expect(messages.steerAccepted({ text: 'and keep it short' })).toEqual({ accepted: true });
    w.unit.inbox.apply(w.unit.carry, () => undefined);
    expect(w.unit.carry.work.filter((item) => item.kind === 'steer').map((item) => item.text)).toEqual([
      'use the v2 API',
      'and keep it short',
    ]);
    expect(() => messages.refuseSteerOnceSettled()).not.toThrow();
    w.unit.outcome = 'merged';
    expect(() => messages.refuseSteerOnceSettled()).toThrow(expect.objectContaining({ type: 'steer_rejected' }));
    expect(() => messages.refuseSteerOnceSettled()).toThrow('the unit has settled (merged)');
  });

  it('stops the unit, and its running child at once with the reason (the first stop counts)', () => {
    const { w, messages, stopped } = handlers();
    messages.stop({ reason: 'not needed', by: 'ada' });
    expect(stopped).toEqual([]);
    w.unit.currentRun = 'unit:acme/app:greet/coding-1-1';
    messages.stop(undefined);
    expect(w.unit.inbox.stopped).toEqual({ reason: 'not needed', by: 'ada' });
    expect(stopped).toEqual([['unit:acme/app:greet/coding-1-1', 'the unit was stopped']]);
  });

  it("drops a pull request event or checks for another repository or pull request, naming the unit's own", () => {
    const { w, messages, dropped } = handlers({ pullRequest: 7 });
    messages.prEvent({ repo: 'acme/other', number: 7, kind: 'merged' });
    messages.prEvent({ repo: 'ACME/App', number: 8, kind: 'closed' });
    messages.checks({ repo: 'acme/app', number: 9, headSha: 'x', source: 'check_suite', conclusion: 'success' });
    expect(dropped).toEqual([
      ['prEvent', 'it is for acme/other, and this unit works on acme/app'],
      ['prEvent', "it is for #8, and this unit's pull request is #7"],
      ['checks', "it is for #9, and this unit's pull request is #7"],
    ]);
    expect(w.unit.inbox.terminal).toBeUndefined();
    expect(w.unit.inbox.checksArrivedFor('x')).toBe(false);
  });

  it("takes its own PR's events: a merge stops the running child, checks and a merge request wait in the inbox", () => {
    const { w, messages, stopped, dropped } = handlers({ pullRequest: 7 });
    w.unit.currentRun = 'unit:acme/app:greet/review-1-1';
    messages.checks({ repo: 'acme/app', number: 7, headSha: 'head-1', source: 'check_run', conclusion: 'success' });
    messages.merge();
    messages.prEvent({ repo: 'acme/app', number: 7, kind: 'merged' });
    expect(dropped).toEqual([]);
    expect(w.unit.inbox.checksArrivedFor('head-1')).toBe(true);
    expect(w.unit.inbox.mergeRequested).toBe(true);
    expect(w.unit.inbox.terminal).toEqual({ outcome: 'merged' });
    expect(stopped).toEqual([['unit:acme/app:greet/review-1-1', 'the pull request was merged']]);
  });

  it('takes any pull request of its repository while it has none of its own yet', () => {
    const { w, messages, dropped } = handlers();
    messages.prEvent({ repo: 'acme/app', number: 12, kind: 'synchronize', headSha: 'theirs' });
    expect(dropped).toEqual([]);
    expect(w.unit.inbox.hasPullRequestEvents()).toBe(true);
  });
});

describe("a unit's update to its plan", () => {
  const input = { unitId: 'unit:acme/app:p-greet', plan: { workflowId: 'plan:acme/app:p', key: 'greet', mergeAuthority: true } };

  it('says the phase, its PR and head, what it spent and what the progress adds', () => {
    expect(planUpdate(input, { pullRequest: 7, headSha: 'h', spentUsd: 0.25 }, { status: 'merge_refused', reason: 'red' })).toEqual({
      key: 'greet',
      unitId: 'unit:acme/app:p-greet',
      status: 'merge_refused',
      pullRequest: 7,
      headSha: 'h',
      spentUsd: 0.25,
      reason: 'red',
    });
    expect(planUpdate(input, {}, { status: 'settled', outcome: 'stopped' })).toMatchObject({ status: 'settled', outcome: 'stopped' });
    expect(planUpdate(input, {}, { status: 'coding' })).not.toHaveProperty('spentUsd');
  });

  it('is nothing for a unit without a plan', () => {
    expect(planUpdate({ unitId: 'unit:acme/app:x' }, { pullRequest: 7 }, { status: 'review' })).toBeUndefined();
  });
});
