import { existsSync } from 'node:fs';
import { type WorkflowHandle } from '@temporalio/client';
import { type AgentSetup } from '../activities/agents/agent-setup';
import { workspaceLayout } from '../activities/sandbox/workspace-layout';
import { type createActivities } from '../activities';
import { failure, planWorkflowType, type PlanInput, type PlanRecord, type UnitRecord } from '../workflows/contracts';
import { Outcome, Phase, SwitchboardKind } from '../workflows/search-attributes';
import { REPO, startShipKit, type ShipKit } from './helpers/ship-kit';

jest.setTimeout(120_000);

/**
 * Issue 11, item 6 ("settle always"): a unit or plan that fails before its first round — its
 * setup unreadable, an agent missing from the worker's catalog, a plan whose graph is unsound —
 * ends like every other end: Completed with a record `failed` and the reason, `Phase=settle` and
 * `Outcome=failed`, and the report in its conversation (an issue on the local GitHub).
 */
describe('a unit or plan that fails before it starts settles failed', () => {
  let ship: ShipKit;
  /** How the worker's agent setup is broken for the next start (none: as configured). */
  let broken: 'no-coding-agent' | 'unreadable' | undefined;
  beforeAll(async () => {
    // A worker whose setup differs from the one the request was checked against (another
    // version's catalog, a custom agents folder it cannot read): the real activity, then changed.
    ship = await startShipKit('settle-setup', {
      wrapActivities: (activities: ReturnType<typeof createActivities>) => ({
        ...activities,
        async loadAgentSetup(): Promise<AgentSetup> {
          const setup = await activities.loadAgentSetup();
          if (broken === 'unreadable') throw failure('config_invalid', 'agents.customAgentsDir cannot be read');
          if (broken === 'no-coding-agent')
            return { ...setup, catalog: { ...setup.catalog, agents: setup.catalog.agents.filter((agent) => agent.id !== 'coding') } };
          return setup;
        },
      }),
    });
  });
  afterAll(async () => {
    await ship.close();
  });
  afterEach(() => {
    broken = undefined;
  });

  const client = () => ship.kit.client;
  const conversation = async (title: string) => {
    const response = await fetch(`${ship.github.apiUrl}/repos/${REPO}/issues`, {
      method: 'POST',
      headers: { authorization: 'token write-token', 'content-type': 'application/json' },
      body: JSON.stringify({ title }),
    });
    const { number } = (await response.json()) as { number: number };
    const issue = () => ship.github.state.repo('acme', 'app')!.issues.get(number)!;
    return { target: { kind: 'github' as const, repo: REPO, pullRequest: number }, comments: () => issue().comments.map((c) => c.body) };
  };
  const attributes = async (handle: WorkflowHandle) => {
    const description = await handle.describe();
    const found = description.typedSearchAttributes;
    return {
      status: description.status.name,
      kind: found.get(SwitchboardKind),
      phase: found.get(Phase),
      outcome: found.get(Outcome),
    };
  };
  const startPlan = (planId: string, target: PlanInput['replyTarget'], units: PlanInput['units']) =>
    client().workflow.start(planWorkflowType, {
      workflowId: planId,
      taskQueue: ship.kit.taskQueue,
      args: [{ planId, repo: REPO, replyTarget: target, requester: { id: 'tester', surface: 'cli' }, units }],
    });

  it('a unit whose coding agent is missing from the catalog: failed with agent_unknown, reported, listed as settled', async () => {
    broken = 'no-coding-agent';
    const talk = await conversation('unit setup');
    const unitId = `unit:${REPO}:setup-no-agent`;
    const handle = await ship.start({ unitId, request: 'Add a feature', replyTarget: talk.target });
    const record: UnitRecord = await handle.result();
    expect(record).toMatchObject({ outcome: 'failed', endedBy: 'the coding agent is not in the catalog', rounds: 0 });
    expect(record.report).toContain('the coding agent is not in the catalog');
    expect(await attributes(handle)).toEqual({ status: 'COMPLETED', kind: 'unit', phase: 'settle', outcome: 'failed' });
    expect(talk.comments()).toEqual([expect.stringContaining(record.report)]);
    expect(record.report.startsWith(`Ship unit ${unitId} failed: `)).toBe(true);
    expect(existsSync(workspaceLayout(ship.kit.dataDir, { key: unitId, network: true }).root)).toBe(false);
  });

  it("a plan's unit that fails at setup: the plan is told it settled failed, and reports", async () => {
    broken = 'no-coding-agent';
    const talk = await conversation('plan unit setup');
    const planId = `plan:${REPO}:setup-unit`;
    const handle = await startPlan(planId, talk.target, [{ key: 'one', request: 'Add one' }]);
    const record: PlanRecord = await handle.result();
    expect(record.units).toEqual([expect.objectContaining({ key: 'one', status: 'settled', outcome: 'failed' })]);
    expect(record.outcome).toBe('blocked');
    const unit = client().workflow.getHandle(record.units[0].unitId);
    expect(((await unit.result()) as UnitRecord).endedBy).toBe('the coding agent is not in the catalog');
    expect(talk.comments().some((body) => body.startsWith(`Ship unit ${record.units[0].unitId} failed: `))).toBe(true);
    expect(talk.comments().some((body) => body.startsWith(`Plan ${planId} blocked.`))).toBe(true);
  });

  it('a unit whose agent setup cannot be read: failed with the reason', async () => {
    broken = 'unreadable';
    const talk = await conversation('unit unreadable');
    const unitId = `unit:${REPO}:setup-unreadable`;
    const handle = await ship.start({ unitId, request: 'Add a feature', replyTarget: talk.target });
    const record: UnitRecord = await handle.result();
    expect(record).toMatchObject({ outcome: 'failed', endedBy: 'agents.customAgentsDir cannot be read' });
    expect(await attributes(handle)).toEqual({ status: 'COMPLETED', kind: 'unit', phase: 'settle', outcome: 'failed' });
    expect(talk.comments()).toEqual([expect.stringContaining(record.report)]);
  });

  it('a plan whose dependencies form a cycle: failed with plan_invalid, no unit started, reported', async () => {
    const talk = await conversation('plan invalid');
    const planId = `plan:${REPO}:setup-cycle`;
    const handle = await startPlan(planId, talk.target, [
      { key: 'a', request: 'a', dependsOn: ['b'] },
      { key: 'b', request: 'b', dependsOn: ['a'] },
    ]);
    const record: PlanRecord = await handle.result();
    expect(record.outcome).toBe('failed');
    expect(record.endedBy).toMatch(/^the plan is not sound: .*cycle/);
    expect(record.units.map((unit) => unit.status)).toEqual(['blocked', 'blocked']);
    expect(await attributes(handle)).toEqual({ status: 'COMPLETED', kind: 'plan', phase: 'settle', outcome: 'failed' });
    expect(talk.comments()).toEqual([expect.stringContaining(record.report)]);
    expect(record.report).toBe(`Plan ${planId} failed: ${record.endedBy}. No unit was started.`);
    // No unit was started.
    await expect(client().workflow.getHandle(record.units[0].unitId).describe()).rejects.toThrow(/not found/i);
  });

  it('a plan whose agent setup cannot be read: failed with the reason', async () => {
    broken = 'unreadable';
    const talk = await conversation('plan unreadable');
    const planId = `plan:${REPO}:setup-unreadable`;
    const handle = await startPlan(planId, talk.target, [{ key: 'one', request: 'Add one' }]);
    const record: PlanRecord = await handle.result();
    expect(record).toMatchObject({ outcome: 'failed', endedBy: 'agents.customAgentsDir cannot be read' });
    expect(await attributes(handle)).toEqual({ status: 'COMPLETED', kind: 'plan', phase: 'settle', outcome: 'failed' });
    expect(talk.comments()).toEqual([expect.stringContaining(record.report)]);
  });
});
