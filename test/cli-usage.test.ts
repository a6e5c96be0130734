import type { RunRecord } from '../workflows/contracts';
import type { UsageRow } from '../cli/usage-totals';
import { startRunKit, type RunKit } from './helpers/run-kit';
import { runCli } from './helpers/cli';

jest.setTimeout(120_000);

/** `switchboard usage`, as the real `bin/switchboard.js` process, against runs with a priced and an unpriced model. */
describe('switchboard usage', () => {
  let kit: RunKit;
  const records: RunRecord[] = [];

  const switchboard = (...args: string[]) => runCli(kit, args);

  beforeAll(async () => {
    // USD per million tokens: 3 in, 15 out, 0.30 cache read, 3.75 cache write.
    kit = await startRunKit('cli-usage', {
      prices: { 'scripted:kit/priced-*': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
    });
    const usage = { inputTokens: 1_000, outputTokens: 200, cacheReadTokens: 5_000, cacheWriteTokens: 300 };
    const priced = kit.script('priced-two-turns', [
      { text: 'Looking.', toolCalls: [{ name: 'update_status', input: { text: 'looking' } }], usage },
      { text: 'Done.', usage },
    ]);
    const unpriced = kit.script('free-one-turn', [{ text: 'Hi.', usage: { inputTokens: 700, outputTokens: 70 } }]);
    for (const [message, options] of [
      ['first', { requester: 'ada', agent: 'general', model: priced }],
      ['second', { requester: 'ada', agent: 'research', model: priced }],
      ['third', { requester: 'bob', agent: 'general', model: unpriced }],
    ] as const) {
      const { runId } = await kit.start(message, options);
      records.push(await kit.result(runId));
    }
  });
  afterAll(async () => kit?.close());

  it("records each turn's four kinds of tokens and the run's cost by the price table", () => {
    const [first, , third] = records;
    // Per turn: 1000*3 + 200*15 + 5000*0.3 + 300*3.75 = 8625 micro-dollars.
    expect(first.usage).toEqual([
      {
        turn: 1,
        model: expect.stringContaining('priced-two-turns'),
        input: 1_000,
        output: 200,
        cacheRead: 5_000,
        cacheWrite: 300,
        costUsd: 0.008625,
        costWithoutCacheUsd: 0.0219,
      },
      {
        turn: 2,
        model: expect.stringContaining('priced-two-turns'),
        input: 1_000,
        output: 200,
        cacheRead: 5_000,
        cacheWrite: 300,
        costUsd: 0.008625,
        costWithoutCacheUsd: 0.0219,
      },
    ]);
    expect(first.tokens).toEqual({ input: 2_000, output: 400, cacheRead: 10_000, cacheWrite: 600 });
    // Without a cache: (1000 + 5000 + 300)*3 + 200*15 = 21900 micro-dollars a turn.
    expect(first.cost).toEqual({ usd: 0.01725, searches: 0, searchUsd: 0, unpriced: [], withoutCacheUsd: 0.0438 });
    // 10000 of 12600 input tokens were read from the cache.
    expect(first.cacheShare).toBe(0.794);
    expect(third.cost).toEqual({ usd: 0, searches: 0, searchUsd: 0, unpriced: [expect.stringContaining('free-one-turn')] });
    expect(third.tokens).toEqual({ input: 700, output: 70, cacheRead: 0, cacheWrite: 0 });
  });

  it('prints per-person and per-agent totals that match the records', async () => {
    const expected = (key: (record: RunRecord) => string): Record<string, { runs: number; input: number; output: number; usd: number }> => {
      const totals: Record<string, { runs: number; input: number; output: number; usd: number }> = {};
      for (const record of records) {
        const row = (totals[key(record)] ??= { runs: 0, input: 0, output: 0, usd: 0 });
        row.runs += 1;
        row.input += record.tokens.input;
        row.output += record.tokens.output;
        row.usd = Math.round((row.usd + record.cost.usd) * 1e6) / 1e6;
      }
      return totals;
    };
    const asMap = (rows: UsageRow[]) =>
      Object.fromEntries(
        rows.map((row) => [row.key, { runs: row.runs, input: row.tokens.input, output: row.tokens.output, usd: row.usd }]),
      );

    // Visibility lags a moment behind the runs' own attributes.
    let answer: { runs: number; by: Record<string, { rows: UsageRow[]; total: UsageRow }> } | undefined;
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 300))) {
      const printed = await switchboard('usage', '--since', '1h', '--json');
      expect(printed).toMatchObject({ code: 0, stderr: '' });
      answer = JSON.parse(printed.stdout) as typeof answer;
      if (answer!.runs === records.length) break;
    }
    expect(answer!.runs).toBe(3);
    expect(asMap(answer!.by.person.rows)).toEqual(expected((record) => record.requester.id));
    expect(asMap(answer!.by.agent.rows)).toEqual(expected((record) => record.profile.agent));
    expect(answer!.by.person.rows.map((row) => row.key)).toEqual(['ada', 'bob']); // costliest first
    expect(answer!.by.person.total).toMatchObject({
      runs: 3,
      usd: 0.0345,
      tokens: { input: 4_700, output: 870, cacheRead: 20_000, cacheWrite: 1_200 },
    });
    expect(answer!.by.person.rows[1].unpriced).toEqual([expect.stringContaining('free-one-turn')]);

    const text = await switchboard('usage', '--since', '1h', '--by', 'person');
    expect(text.stdout).toMatch(/^ +2 +4000 +800 +20000 +1200 +79 % +\$0\.0345 +\$0\.0876 +0 {2}ada$/m);
    expect(text.stdout).toMatch(
      /^ +1 +700 +70 +0 +0 +0 % +\$0\.0000 +\$0\.0000 +0 {2}bob \(unpriced: scripted:kit\/free-one-turn\.yaml\)$/m,
    );
    expect(text.stdout).toMatch(
      /^ +3 +4700 +870 +20000 +1200 +77 % +\$0\.0345 +\$0\.0876 +0 {2}total \(unpriced: scripted:kit\/free-one-turn\.yaml\)$/m,
    );

    const byThread = JSON.parse((await switchboard('usage', '--since', '1h', '--by', 'thread', '--json')).stdout) as typeof answer;
    expect(byThread!.by.thread.rows.map((row) => row.key).sort()).toEqual(records.map((record) => record.threadId).sort());
  });

  it('answers a bad --since or --by with one line', async () => {
    expect(await switchboard('usage', '--since', 'last week')).toEqual({
      code: 1,
      stdout: '',
      stderr: "--since: expected a span like 7d, 12h, 30m, 2w or a date like 2026-01-31, got 'last week'\n",
    });
    expect(await switchboard('usage', '--by', 'team')).toMatchObject({
      code: 1,
      stderr: "--by: expected person, agent, repo, thread, unit, plan, got 'team'\n",
    });
  });
});
