import { sendMessage } from '../cli/commands/ask';
import { runsQuery } from '../infra/run-spends';
import { visibilityQuery } from '../infra/visibility';
import { runStatusQuery } from '../workflows/contracts';
import { startRunKit, type RunKit } from './helpers/run-kit';
import { waitUntil } from './helpers/wait';

jest.setTimeout(120_000);

/**
 * Spend caps end to end: a real thread, runs and worker, priced scripted turns, and the caps
 * summed from Temporal visibility and the runs' records (no other store).
 */
describe('spend caps', () => {
  let kit: RunKit;

  beforeAll(async () => {
    kit = await startRunKit('spend-caps', {
      // USD per million tokens: a turn of 1,000 in and 200 out costs $0.006; 2,000 in and 400 out, $0.012.
      prices: { 'scripted:kit/*': { input: 3, output: 15 } },
      spend: { people: { ada: { dailyUsd: 0.01 }, cy: { runUsd: 0.01 } }, channels: {}, repos: {}, agents: {} },
    });
  });
  afterAll(async () => kit?.close());

  it('a run stopped by its money cap ends with its closing summary and says which bound stopped it', async () => {
    const usage = { inputTokens: 1_000, outputTokens: 200 };
    const model = kit.script('capped', [
      { text: 'Step one.', toolCalls: [{ name: 'update_status', input: { text: 'one' } }], usage },
      { text: 'Step two.', toolCalls: [{ name: 'update_status', input: { text: 'two' } }], usage },
      { text: 'Closing: steps one and two are done; step three is left.', usage },
      { text: 'never played', usage },
    ]);
    const { runId } = await kit.start('do three steps', { requester: 'cy', agent: 'general', model });
    const record = await kit.result(runId);
    expect(record).toMatchObject({
      outcome: 'spend',
      endedBy: 'the $0.0100 per-run cap of person cy',
      turns: 3,
      summary: 'Closing: steps one and two are done; step three is left.',
      finalText: 'Closing: steps one and two are done; step three is left.',
      spendCap: { usd: 0.01, boundedBy: 'the $0.0100 per-run cap of person cy' },
    });
    // Two steps reached the cap ($0.012); the summary was told why tools ended, and is counted too.
    expect(record.cost.usd).toBe(0.018);
    expect(record.usage.map((turn) => turn.purpose)).toEqual([undefined, undefined, 'summary']);
    expect(record.toolCalls).toHaveLength(2);
    const status = await kit.client.workflow.getHandle(runId).query(runStatusQuery);
    expect(status).toMatchObject({ outcome: 'spend', endedBy: 'the $0.0100 per-run cap of person cy' });
  });

  it("a start past a person's daily cap is refused in the conversation with the amount and the reset time", async () => {
    const model = kit.script('pricey', [{ text: 'Answered.', usage: { inputTokens: 2_000, outputTokens: 400 } }]);
    const first = await kit.start('first question', { requester: 'ada', agent: 'general', model });
    const record = await kit.result(first.runId);
    // The first start had the whole daily cap left: that was its bound.
    expect(record).toMatchObject({ outcome: 'completed', spendCap: { usd: 0.01 } });
    expect(record.cost.usd).toBe(0.012);
    // Visibility lists a run a moment after it closes: the check sums what Temporal lists.
    await waitUntil(
      async () => {
        let count = 0;
        for await (const _ of kit.client.workflow.list({
          query: runsQuery(kit.taskQueue, new Date(0), visibilityQuery({ Requester: 'ada' })),
        }))
          count += 1;
        return count;
      },
      (count) => count >= 1,
    );

    const second = await sendMessage(kit.client, kit.taskQueue, 'second question', {
      requester: 'ada',
      agent: 'general',
      model,
      thread: first.threadId,
    });
    expect(second.outcome).toMatchObject({ kind: 'refused', code: 'spend_cap' });
    expect(second.outcome.reply).toMatch(
      /^Not started: You have spent \$0\.0120 today, and your daily spend cap is \$0\.0100\. The cap resets at 00:00 UTC on \d{4}-\d{2}-\d{2} \(in (\d+ h )?\d+ min\)\./,
    );
    // Someone else is not held to ada's cap.
    const other = await kit.start('my question', { requester: 'bob', agent: 'general', model });
    expect((await kit.result(other.runId)).outcome).toBe('completed');
  });
});
