import type { PlanInput } from '../contracts';
import { PlanProgress } from './plan-progress';
import { NOT_FUNDED } from './plan-start';

const input: PlanInput = {
  planId: 'plan:acme/app:notes',
  repo: 'acme/app',
  replyTarget: { kind: 'cli' },
  requester: { id: 'ana', surface: 'cli' },
  units: [
    { key: 'web', request: 'Show it', dependsOn: ['api'] },
    { key: 'api', request: 'Add the API' },
    { key: 'docs', request: 'Say it' },
  ],
};

const unitId = (key: string) => `unit:acme/app:notes-${key}`;

describe("a plan's progress", () => {
  it('starts with every unit waiting on its own id, in dependency order, and changed once so the loop looks', () => {
    const p = new PlanProgress(input, true);
    expect(p.order).toEqual(['api', 'docs', 'web']);
    expect(p.units.map((unit) => [unit.key, unit.unitId, unit.status])).toEqual([
      ['web', unitId('web'), 'waiting'],
      ['api', unitId('api'), 'waiting'],
      ['docs', unitId('docs'), 'waiting'],
    ]);
    expect(p.changed).toBe(true);
    expect(p.state()).toEqual({ planId: input.planId, mergeAuthority: true, units: p.units, merged: [], done: false });
    expect(p.spec('web')).toBe(input.units[0]);
  });

  it('starts a unit once its dependencies merged (with merge authority), and merges ready units one at a time in order', () => {
    const p = new PlanProgress(input, true);
    expect(p.beginStarts()).toBe(false);
    expect(p.order.map((key) => p.startable(key, false)?.key)).toEqual(['api', 'docs', undefined]);
    for (const key of ['api', 'docs']) p.startable(key, false)!.status = 'running';
    p.changed = false;
    expect(p.take({ key: 'docs', unitId: unitId('docs'), status: 'ready' })).toBeUndefined();
    expect(p.take({ key: 'api', unitId: unitId('api'), status: 'ready' })).toBeUndefined();
    expect(p.changed).toBe(true);
    const first = p.nextMerge();
    expect(first).toMatchObject({ key: 'api', status: 'merging' });
    // One merge in flight: the next waits for it.
    expect(p.nextMerge()).toBeUndefined();
    p.take({ key: 'api', unitId: unitId('api'), status: 'settled', outcome: 'merged' });
    expect(p.startable('web', false)).toMatchObject({ key: 'web' });
    expect(p.nextMerge()).toMatchObject({ key: 'docs', status: 'merging' });
    expect(p.merged).toEqual(['api']);
  });

  it('without merge authority merges nothing and starts a dependant once its dependency is ready', () => {
    const p = new PlanProgress(input, false);
    p.units[1].status = 'running';
    p.take({ key: 'api', unitId: unitId('api'), status: 'ready' });
    expect(p.nextMerge()).toBeUndefined();
    expect(p.startable('web', false)).toMatchObject({ key: 'web' });
  });

  it("drops another plan's update with why, changing nothing", () => {
    const p = new PlanProgress(input, true);
    p.changed = false;
    expect(p.take({ key: 'nope', unitId: 'x', status: 'ready' })).toMatch(/is not a unit of this plan/);
    expect(p.take({ key: 'api', unitId: 'unit:elsewhere', status: 'settled', outcome: 'merged' })).toMatch(/is not the unit api/);
    expect(p.changed).toBe(false);
    expect(p.fundingWanted).toBe(false);
  });

  it('blocks the dependants of a unit that settled without merging, and ends blocked', () => {
    const p = new PlanProgress(input, true);
    p.units[1].status = 'running';
    p.units[2].status = 'running';
    p.take({ key: 'api', unitId: unitId('api'), status: 'settled', outcome: 'failed' });
    p.take({ key: 'docs', unitId: unitId('docs'), status: 'settled', outcome: 'merged' });
    expect(p.done()).toBe(false);
    p.beginStarts();
    expect(p.units[0].status).toBe('blocked');
    expect(p.done()).toBe(true);
    expect(p.outcome()).toBe('blocked');
    expect(p.finalReport('blocked')).toBe('Plan plan:acme/app:notes blocked. Merged in order: docs.');
  });

  it('completes when every unit merged, or, where people merge, when every unit settled', () => {
    const merging = new PlanProgress({ ...input, units: [input.units[1]] }, true);
    merging.units[0].status = 'running';
    merging.take({ key: 'api', unitId: unitId('api'), status: 'settled', outcome: 'merged' });
    expect(merging.outcome()).toBe('completed');
    const people = new PlanProgress({ ...input, units: [input.units[1]] }, false);
    people.units[0].status = 'running';
    people.take({ key: 'api', unitId: unitId('api'), status: 'settled', outcome: 'closed' });
    expect(people.outcome()).toBe('completed');
  });

  it('stops: the first stop counts, the started units still going are returned to stop, waiting ones are blocked', () => {
    const p = new PlanProgress(input, true);
    p.units[1].status = 'running';
    p.units[2].status = 'merged';
    p.changed = false;
    expect(p.stop({ by: 'ana', reason: 'enough' }).map((unit) => unit.key)).toEqual(['api']);
    expect(p.changed).toBe(true);
    expect(p.stop(undefined).map((unit) => unit.key)).toEqual(['api']);
    expect(p.stopped).toEqual({ by: 'ana', reason: 'enough' });
    expect(p.stopInput()).toEqual({ reason: 'the plan was stopped', by: 'ana' });
    expect(p.phase()).toBe('stopping');
    // Still going: the plan waits for the unit it stopped.
    expect(p.blockWaiting()).toBe(false);
    expect(p.units[0].status).toBe('blocked');
    p.take({ key: 'api', unitId: unitId('api'), status: 'settled', outcome: 'stopped' });
    expect(p.blockWaiting()).toBe(true);
    expect(p.outcome()).toBe('stopped');
    expect(new PlanProgress(input, true).stopInput()).toEqual({ reason: 'the plan was stopped' });
  });

  it('tries an unfunded start again after a unit settled or the wait for money ran out, once', () => {
    const p = new PlanProgress({ ...input, units: [input.units[1], input.units[2]] }, true);
    p.units[0].note = `${NOT_FUNDED} (spent $1.00 today)`;
    expect(p.unfunded()).toBe(true);
    expect(p.startable('api', p.beginStarts())).toBeUndefined();
    p.waited(true);
    expect(p.startable('api', p.beginStarts())).toMatchObject({ key: 'api' });
    expect(p.beginStarts()).toBe(false);
    p.waited(false);
    expect(p.fundingWanted).toBe(false);
    p.units[1].status = 'running';
    p.take({ key: 'docs', unitId: unitId('docs'), status: 'settled', outcome: 'merged' });
    p.waited(false);
    expect(p.beginStarts()).toBe(true);
  });

  it('says its units and their pull requests in a progress line', () => {
    const p = new PlanProgress(input, true);
    p.units[1].status = 'running';
    p.take({ key: 'api', unitId: unitId('api'), status: 'review', pullRequest: 4 });
    expect(p.progressText()).toBe('Plan plan:acme/app:notes: web waiting, api running (#4), docs waiting.');
  });
});
