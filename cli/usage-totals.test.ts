import { groupKey, parseSince, reservedTotals, usageTotals, type RunSpend } from './usage-totals';

const spend = (runId: string, thread: string, usd: number, input = 100): RunSpend => ({
  runId,
  person: 'ada',
  agent: 'coding',
  thread,
  tokens: { input, output: 10, cacheRead: 0, cacheWrite: 0 },
  cost: { usd, searches: 0, searchUsd: 0, unpriced: [] },
  running: false,
});

describe('usage totals', () => {
  it('finds the unit and the plan a run belongs to, the repository slash included', () => {
    const task = spend('unit:acme/app#7/coding-1-1/task-1', 'thread:gh:acme/app#7', 0);
    expect(groupKey(task, 'unit')).toBe('unit:acme/app#7');
    const planned = spend('unit:acme/app:notes-api/review-0-1', 'plan:acme/app:notes/api', 0);
    expect(groupKey(planned, 'unit')).toBe('unit:acme/app:notes-api');
    expect(groupKey(planned, 'plan')).toBe('plan:acme/app:notes');
    expect(groupKey(spend('run:thread:cli:x:1', 'thread:cli:x', 0), 'unit')).toBe('(none)');
  });

  it('sums per key, costliest first, with exact dollars and a total', () => {
    const { rows, total } = usageTotals([spend('run:a:1', 'a', 0.1), spend('run:a:2', 'a', 0.2), spend('run:b:1', 'b', 0.25, 5)], 'thread');
    expect(rows.map((row) => [row.key, row.runs, row.usd, row.tokens.input])).toEqual([
      ['a', 2, 0.3, 200],
      ['b', 1, 0.25, 5],
    ]);
    expect(total).toMatchObject({ key: 'total', runs: 3, usd: 0.55 });
  });

  it('sums what the runs would have cost with no cache, and the share of input the cache served', () => {
    const cached: RunSpend = {
      ...spend('run:c:1', 'c', 0.02),
      tokens: { input: 100, output: 10, cacheRead: 800, cacheWrite: 100 },
      cost: { usd: 0.02, searches: 0, searchUsd: 0, unpriced: [], withoutCacheUsd: 0.05 },
    };
    // A record from before the no-cache cost was kept counts at its cost.
    const { total } = usageTotals([cached, spend('run:d:1', 'd', 0.01)], 'person');
    expect(total).toMatchObject({ usd: 0.03, withoutCacheUsd: 0.06, cacheShare: 0.727 });
  });

  it('reads --since as a span or a date', () => {
    const now = new Date('2026-12-02T00:00:00Z');
    expect(parseSince('7d', now).toISOString()).toBe('2026-11-25T00:00:00.000Z');
    expect(parseSince('12h', now).toISOString()).toBe('2026-12-01T12:00:00.000Z');
    expect(parseSince('2026-11-30', now).toISOString()).toBe('2026-11-30T00:00:00.000Z');
    expect(() => parseSince('yesterday', now)).toThrow(/^--since: expected a span like 7d/);
  });
});

describe('reserved totals', () => {
  const hold = (holder: string, usd: number, threadId: string, kind: 'run' | 'unit' = 'unit') => ({
    holder,
    kind,
    by: 'test',
    scope: { person: 'ada', repo: 'acme/app', agent: kind === 'unit' ? 'ship' : 'general' },
    caps: [],
    threadId,
    usd,
    boundedBy: 'test',
    since: 0,
    at: 0,
  });

  it('groups reservations as runs are grouped: a unit by its own id, a plan by its units’ threads', () => {
    const holds = [
      hold('unit:acme/app:notes-api', 0.01, 'plan:acme/app:notes/api'),
      hold('unit:acme/app:notes-web', 0.01, 'plan:acme/app:notes/web'),
      hold('run:thread:cli:x:1', 0.5, 'thread:cli:x', 'run'),
    ];
    expect(reservedTotals(holds, 'plan')).toEqual({
      rows: [
        { key: '(none)', usd: 0.5, holders: 1 },
        { key: 'plan:acme/app:notes', usd: 0.02, holders: 2 },
      ],
      total: { key: 'total', usd: 0.52, holders: 3 },
    });
    expect(reservedTotals(holds, 'unit').rows.map((row) => row.key)).toEqual([
      '(none)',
      'unit:acme/app:notes-api',
      'unit:acme/app:notes-web',
    ]);
    expect(reservedTotals(holds, 'agent').rows.map((row) => [row.key, row.usd])).toEqual([
      ['general', 0.5],
      ['ship', 0.02],
    ]);
  });
});
