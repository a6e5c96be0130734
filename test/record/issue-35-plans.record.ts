/**
 * Records histories that take issue 35's plans-and-money branches (run it alone:
 * `npx jest --config jest.record.config.js test/record/issue-35-plans.record.ts`; docs/versioning.md):
 * the spend ledger (a new workflow type) reserving, releasing and sweeping a terminated holder;
 * a thread that reserves its run's money (`thread-reserves-spend`); a unit that reserves each round
 * (`unit-reserves-spend`); a plan whose units have conversations of their own and whose second unit
 * waits until the caps can fund it (`plan-unit-threads`); a thread that starts a plan asked for in
 * its conversation (`thread-starts-plans`). None overwrites an older history.
 */
import { type Client } from '@temporalio/client';
import { sendToThread } from '../../infra/thread-client';
import {
  planStateQuery,
  planWorkflowType,
  spendLedgerId,
  spendLedgerQuery,
  stopSignal,
  sweepSpendUpdate,
  threadStateQuery,
  unitStateQuery,
} from '../../workflows/contracts';
import { saveHistory } from '../helpers/history';
import { REPO, startShipKit, type ShipKit } from '../helpers/ship-kit';
import { waitUntil } from '../helpers/wait';

jest.setTimeout(300_000);

describe('issue 35: plans from every door, money reserved before it is spent', () => {
  let ship: ShipKit;
  const client = (): Client => ship.kit.env.client;
  let slow: string;
  let quick: string;

  beforeAll(async () => {
    ship = await startShipKit('record-35p', {
      // A turn of 1,000 tokens in and 200 out costs $0.006.
      models: { prices: { 'scripted:kit/priced-*': { input: 3, output: 15 } } },
      spend: {
        people: { cy: { dailyUsd: 0.05 } },
        channels: {},
        repos: { [REPO]: { dailyUsd: 0.01 } },
        agents: {},
        reserve: { unitRoundUsd: 0.01, sweepSeconds: 1 },
      },
    });
    slow = ship.kit.script('record-35p-slow', [
      { text: 'Working slowly.', toolCalls: [{ name: 'bash', input: { command: 'sleep 3391' } }] },
      { text: 'never' },
    ]);
    quick = ship.kit.script('priced-quick', [{ text: 'Answered.', usage: { inputTokens: 1_000, outputTokens: 200 } }]);
  });
  afterAll(async () => ship?.close());

  const ledger = () => client().workflow.getHandle(spendLedgerId(ship.kit.taskQueue));

  // Patches: thread-reserves-spend (the run's bound reserved in the ledger, released to what it spent).
  test('35p: a thread reserves its run’s money and releases it', async () => {
    const { threadId, runId } = await ship.kit.start('a quick one', { requester: 'cy', agent: 'general', model: quick });
    expect((await ship.kit.result(runId)).spendCap).toMatchObject({ usd: 0.05 });
    await waitUntil(
      () => client().workflow.getHandle(threadId).query(threadStateQuery),
      (state) => state.currentRunId === undefined && state.outcomes.length === 1,
    );
    await waitUntil(
      () => ledger().query(spendLedgerQuery),
      (state) => state.settled.some((entry) => entry.holder === runId),
    );
    await saveHistory(client(), threadId, 'thread/run-reserved');
  });

  // Patches: unit-reserves-spend (a round reserved before it starts, released when the unit settles).
  test('35p: a unit reserves its round and releases it when stopped', async () => {
    const unitId = `unit:${REPO}:record-35p-unit`;
    const unit = await ship.start({ unitId, request: 'Add a line slowly', model: slow });
    await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.currentRun !== undefined && state.spend?.reservedUsd === 0.01,
      120_000,
    );
    await unit.signal(stopSignal, { reason: 'recorded', by: 'tester' });
    expect((await unit.result()).outcome).toBe('stopped');
    await waitUntil(
      () => ledger().query(spendLedgerQuery),
      (state) => !state.holds.some((hold) => hold.holder === unitId),
    );
    await saveHistory(client(), unitId, 'unit/rounds-reserved');
  });

  // Patches: plan-unit-threads (its card, its units' starts: the second waits until the cap funds it).
  test('35p: a plan whose second unit waits for money, then is stopped', async () => {
    const planId = `plan:${REPO}:record-35p`;
    const plan = await client().workflow.start(planWorkflowType, {
      workflowId: planId,
      taskQueue: ship.kit.taskQueue,
      args: [
        {
          planId,
          repo: REPO,
          replyTarget: { kind: 'cli' },
          requester: { id: 'tester', surface: 'cli' },
          model: slow,
          units: [
            { key: 'one', request: 'Add one slowly' },
            { key: 'two', request: 'Add two slowly' },
          ],
        },
      ],
    });
    const waiting = await waitUntil(
      () => plan.query(planStateQuery),
      (state) => state.units[0].phase === 'coding' && state.units[1].note !== undefined,
      120_000,
    );
    expect(waiting.units[1]).toMatchObject({ status: 'waiting', note: expect.stringContaining('not funded yet') });
    await plan.signal(stopSignal, { reason: 'recorded', by: 'tester' });
    expect((await plan.result()).outcome).toBe('stopped');
    await saveHistory(client(), planId, 'plan/unit-waits-for-money');
  });

  // The ledger itself: reservations, releases, and a sweep that releases a terminated holder.
  test('35p: the spend ledger holds, releases and sweeps', async () => {
    const unitId = `unit:${REPO}:record-35p-terminated`;
    const unit = await ship.start({ unitId, request: 'Add a line slowly', model: slow });
    await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.spend?.reservedUsd === 0.01,
      120_000,
    );
    await unit.terminate('recorded: a terminated holder');
    await waitUntil(
      () => ledger().executeUpdate(sweepSpendUpdate, { args: [{ by: 'recorder' }] }),
      (state) => !state.holds.some((hold) => hold.holder === unitId),
    );
    await saveHistory(client(), spendLedgerId(ship.kit.taskQueue), 'ledger/held-released-swept');
  });

  // Patches: thread-starts-plans (a plan asked for in the conversation, admitted and started on its own id).
  test('35p: a thread starts a plan asked for in its conversation', async () => {
    const threadId = 'thread:cli:record-35p-plan';
    const text = ['plan', 'name: asked', `model: ${slow}`, 'units:', '  - key: only', '    request: Add only slowly'].join('\n');
    const outcome = await sendToThread(client(), ship.kit.taskQueue, {
      threadId,
      input: { threadId, replyTarget: { kind: 'cli' } },
      message: {
        messageId: 'cli:record-35p-plan:1',
        text: `${text.replace('plan', `plan in ${REPO}`)}`,
        requester: { id: 'tester', surface: 'cli' },
      },
      summary: 'issue 35 recorder',
    });
    expect(outcome).toMatchObject({ kind: 'plan', planId: `plan:${REPO}:asked` });
    const plan = client().workflow.getHandle(outcome!.planId!);
    await waitUntil(
      () => plan.query(planStateQuery),
      (state) => state.units[0].status !== 'waiting',
      120_000,
    );
    await plan.signal(stopSignal, { reason: 'recorded', by: 'tester' });
    await plan.result();
    await saveHistory(client(), threadId, 'thread/plan-asked');
  });
});
