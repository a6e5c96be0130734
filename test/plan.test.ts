import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { planStateQuery, planWorkflowType, stopSignal, type UnitRecord } from '../workflows/contracts';
import { REPO, startShipKit, type ShipKit } from './helpers/ship-kit';
import { timeSkippingEnvironment } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(240_000);

describe('planWorkflow', () => {
  let env: TestWorkflowEnvironment;
  let ship: ShipKit;
  beforeAll(async () => {
    env = await timeSkippingEnvironment();
    ship = await startShipKit('plan', { env });
  });
  afterAll(async () => {
    await ship.close();
    await env.teardown();
  });

  it('starts a chain of three units in order and merges them in dependency order', async () => {
    // Each unit writes its own file; the request names it. Reviews approve.
    const model = ship.model([
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Fine.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
          },
          {
            when: { lastUserIncludes: 'schema' },
            text: 'Schema.',
            toolCalls: [{ name: 'bash', input: { command: 'echo "schema v1" > schema.txt' } }],
          },
          {
            when: { lastUserIncludes: 'server' },
            text: 'Server.',
            toolCalls: [{ name: 'bash', input: { command: 'test -f schema.txt && echo "server uses $(cat schema.txt)" > server.txt' } }],
          },
          {
            text: 'Client.',
            toolCalls: [{ name: 'bash', input: { command: 'test -f server.txt && echo "client of the server" > client.txt' } }],
          },
        ],
      },
      { text: 'done: {{lastToolResult}}' },
    ]);
    const planId = `plan:${REPO}:api`;
    const handle = await env.client.workflow.start(planWorkflowType, {
      workflowId: planId,
      taskQueue: ship.kit.taskQueue,
      args: [
        {
          planId,
          repo: REPO,
          replyTarget: { kind: 'cli' },
          requester: { id: 'tester', surface: 'cli' },
          model,
          mergeAuthority: true,
          units: [
            { key: 'client', request: 'Add the client', dependsOn: ['server'] },
            { key: 'schema', request: 'Add the schema file' },
            { key: 'server', request: 'Add the server file', dependsOn: ['schema'] },
          ],
        },
      ],
    });
    const plan = await handle.result();
    expect(plan.outcome).toBe('completed');
    expect(plan.merged).toEqual(['schema', 'server', 'client']);
    const merges = ship.github.state.writes.filter((write) => write.kind === 'pull_request.merge').map((write) => write.number);
    const numberOf = (key: string) => plan.units.find((unit) => unit.key === key)!.pullRequest;
    expect(merges).toEqual([numberOf('schema'), numberOf('server'), numberOf('client')]);
    for (const unit of plan.units) {
      const record = (await env.client.workflow.getHandle(unit.unitId).result()) as UnitRecord;
      expect(record.outcome).toBe('merged');
    }
  });

  it('settles a plan whose dependencies form a cycle failed, starting nothing', async () => {
    const planId = `plan:${REPO}:cycle`;
    const handle = await env.client.workflow.start(planWorkflowType, {
      workflowId: planId,
      taskQueue: ship.kit.taskQueue,
      args: [
        {
          planId,
          repo: REPO,
          replyTarget: { kind: 'cli' },
          requester: { id: 'tester', surface: 'cli' },
          units: [
            { key: 'a', request: 'a', dependsOn: ['b'] },
            { key: 'b', request: 'b', dependsOn: ['a'] },
          ],
        },
      ],
    });
    const record = await handle.result();
    expect(record).toMatchObject({ outcome: 'failed', endedBy: expect.stringContaining('the dependencies form a cycle') });
    expect(record.units.map((unit) => unit.status)).toEqual(['blocked', 'blocked']);
  });
});

// The time-skipping server delivers a signal its sender sent while completing; the real server
// drops it. There, a plan hears its unit settle only because the unit waits for that signal.
describe('planWorkflow on the real server', () => {
  let ship: ShipKit;
  beforeAll(async () => {
    ship = await startShipKit('plan-real');
  });
  afterAll(async () => ship.close());

  it('settles stopped once its running unit has settled and said so', async () => {
    const model = ship.model([{ text: 'Slow.', toolCalls: [{ name: 'bash', input: { command: 'sleep 3391' } }] }, { text: 'never' }]);
    const planId = `plan:${REPO}:stop-real`;
    const handle = await ship.kit.env.client.workflow.start(planWorkflowType, {
      workflowId: planId,
      taskQueue: ship.kit.taskQueue,
      args: [
        {
          planId,
          repo: REPO,
          replyTarget: { kind: 'cli' },
          requester: { id: 'tester', surface: 'cli' },
          model,
          units: [
            { key: 'one', request: 'Work slowly' },
            { key: 'two', request: 'Then this', dependsOn: ['one'] },
          ],
        },
      ],
    });
    await waitUntil(
      () => handle.query(planStateQuery),
      (state) => state.units.some((unit) => unit.status === 'running'),
    );
    await handle.signal(stopSignal, { reason: 'test over', by: 'tester' });
    const plan = await handle.result();
    expect(plan.outcome).toBe('stopped');
    expect(plan.units.map((unit) => [unit.key, unit.status, unit.outcome])).toEqual([
      ['one', 'settled', 'stopped'],
      ['two', 'blocked', undefined],
    ]);
  });
});
