import type { PlanInput, PlanUnitState, ShipUnitInput } from '../contracts';
import type { StartUnitResult } from '../contracts/unit-client';
import { planCard } from './plan-card';
import { NOT_FUNDED, PlanUnitStarter } from './plan-start';
import { takeUnitUpdate } from './plan-updates';

const slack = { kind: 'slack' as const, team: 'T1', channel: 'C1', threadTs: '100.000001' };
const input = (replyTarget: PlanInput['replyTarget']): PlanInput => ({
  planId: 'plan:acme/app:notes',
  repo: 'acme/app',
  replyTarget,
  requester: { id: 'ana', surface: 'slack' },
  units: [
    { key: 'api', request: 'Add the API' },
    { key: 'web', request: 'Show it', dependsOn: ['api'] },
  ],
});
const unit = (key: string, dependsOn: string[] = []): PlanUnitState => ({
  key,
  unitId: `unit:acme/app:notes-${key}`,
  status: 'waiting',
  dependsOn,
});

function starter(replyTarget: PlanInput['replyTarget'], answer: StartUnitResult['status'] | StartUnitResult) {
  const started: ShipUnitInput[] = [];
  const opened: string[] = [];
  const plan = new PlanUnitStarter(
    input(replyTarget),
    true,
    {
      status: {
        openUnitThread: async (thread) => {
          opened.push(thread.effectKey);
          return { status: 'confirmed', replyTarget: { ...slack, threadTs: '200.000002' } };
        },
      },
      units: {
        startUnit: async (unitInput) => {
          started.push(unitInput);
          return typeof answer === 'string' ? { unitId: unitInput.unitId, status: answer } : answer;
        },
      },
    },
    true,
  );
  return { plan, started, opened };
}

describe('starting a plan unit', () => {
  it("in Slack: opens the unit's own thread once and starts the unit reporting there, under the plan's channel", async () => {
    const { plan, started, opened } = starter(slack, 'started');
    const api = unit('api');
    await plan.start(api, input(slack).units[0]);
    await plan.start({ ...api, status: 'waiting' }, input(slack).units[0]);
    expect(opened).toEqual(['plan:acme/app:notes/thread/api']);
    expect(started[0]).toMatchObject({
      replyTarget: { kind: 'slack', channel: 'C1', threadTs: '200.000002' },
      channelId: 'C1',
      threadId: 'plan:acme/app:notes/api',
      plan: { workflowId: 'plan:acme/app:notes', key: 'api', mergeAuthority: true },
      effectKey: 'plan:acme/app:notes/start/api',
    });
    expect(api).toMatchObject({ status: 'running', conversation: { threadTs: '200.000002' } });
  });

  it('on GitHub: the unit converses on its pull request once it has one', async () => {
    const github = { kind: 'github' as const, repo: 'acme/app', pullRequest: 3, issue: true };
    const { plan, started, opened } = starter(github, 'started');
    await plan.start(unit('api'), input(github).units[0]);
    expect(opened).toEqual([]);
    expect(started[0]).toMatchObject({ replyTarget: github, conversation: 'pull-request' });
  });

  it('a start the spend caps cannot fund leaves the unit waiting with the refusal; any other refusal settles it failed', async () => {
    const unfunded = starter(
      { kind: 'api' },
      {
        unitId: 'x',
        status: 'refused',
        code: 'spend_cap',
        reason: 'Not started: Runs on acme/app have spent $1.00 today.',
      },
    );
    const api = unit('api');
    await unfunded.plan.start(api, input({ kind: 'api' }).units[0]);
    expect(api).toMatchObject({ status: 'waiting', note: `${NOT_FUNDED} (Runs on acme/app have spent $1.00 today.)` });
    const missing = starter({ kind: 'api' }, { unitId: 'x', status: 'refused', code: 'settings_missing', reason: 'Not started: no key.' });
    const web = unit('web');
    await missing.plan.start(web, input({ kind: 'api' }).units[1]);
    expect(web).toMatchObject({ status: 'settled', outcome: 'failed', note: 'Not started: no key.' });
  });
});

describe("the plan's card", () => {
  it("shows each unit with its phase, PR, what it waits for and what it spent, and the plan's totals", () => {
    const units = [unit('api'), unit('web', ['api'])];
    units[0].status = 'running';
    expect(
      takeUnitUpdate(units, [], { key: 'api', unitId: units[0].unitId, status: 'review', pullRequest: 4, spentUsd: 0.5 }),
    ).toBeUndefined();
    expect(takeUnitUpdate(units, [], { key: 'api', unitId: 'unit:elsewhere', status: 'ready' })).toMatch(/is not the unit api/);
    expect(planCard({ planId: 'plan:acme/app:notes', mergeAuthority: true, units, merged: [], done: false }, 'running')).toBe(
      [
        'Plan `plan:acme/app:notes`: running (it merges its units in dependency order)',
        '• `api` review · PR #4 · $0.5000',
        '• `web` waiting · after api (waiting)',
        'Spent $0.5000 · merged: none yet',
      ].join('\n'),
    );
  });
});
