import type { SpendConfig } from '../infra/config/spend-section';
import { applicableCaps, channelThreadPrefix, reserveVerdict, spendDay, spendVerdict, utcDate } from './spend-caps';

const config: SpendConfig = {
  people: { '*': { dailyUsd: 5 }, ada: { dailyUsd: 20, runUsd: 4 } },
  channels: { C1: { dailyUsd: 50 } },
  repos: { 'acme/app': { runUsd: 2 } },
  agents: { explore: { runUsd: 10 } },
};
// 2026-03-10 17:30 UTC: the day started at midnight and its caps reset at the next one, 6 h 30 min away.
const now = Date.UTC(2026, 2, 10, 17, 30);

describe('spend caps', () => {
  it('finds the caps of a start: an id over `*`, field by field; scopes without caps left out', () => {
    expect(applicableCaps(config, { person: 'bob', channel: 'C1', repo: 'acme/app', agent: 'explore' })).toEqual([
      { kind: 'person', id: 'bob', dailyUsd: 5 },
      { kind: 'channel', id: 'C1', dailyUsd: 50 },
      { kind: 'repo', id: 'acme/app', runUsd: 2 },
      { kind: 'agent', id: 'explore', runUsd: 10 },
    ]);
    expect(applicableCaps(config, { person: 'ada', agent: 'general' })).toEqual([{ kind: 'person', id: 'ada', dailyUsd: 20, runUsd: 4 }]);
    expect(applicableCaps(undefined, { person: 'ada', agent: 'general' })).toEqual([]);
  });

  it("refuses a start past a person's daily cap with the amount and when it resets", () => {
    const caps = applicableCaps(config, { person: 'bob', agent: 'general' });
    const verdict = spendVerdict(caps, { person: 5.2 }, now);
    expect(verdict).toMatchObject({ kind: 'refuse', code: 'spend_cap', scope: 'person', id: 'bob', spentUsd: 5.2, capUsd: 5 });
    expect(verdict.kind === 'refuse' && verdict.resetsAt).toBe(Date.UTC(2026, 2, 11));
    expect(verdict.kind === 'refuse' && verdict.reply).toBe(
      'Not started: You have spent $5.20 today, and your daily spend cap is $5.00. The cap resets at 00:00 UTC on 2026-03-11 (in 6 h 30 min). ' +
        'An operator can raise it (`spend.people` in switchboard.yaml).',
    );
  });

  it('names a channel, a repository or an agent whose daily cap is spent', () => {
    const channel = spendVerdict(
      applicableCaps(config, { person: 'ada', channel: 'C1', agent: 'general' }),
      { person: 1, channel: 50 },
      now,
    );
    expect(channel.kind === 'refuse' && channel.reply).toMatch(/^Not started: Runs in this channel have spent \$50\.00 today/);
  });

  it('admits with the smallest money bound: a per-run cap, or what is left of a daily one', () => {
    const caps = applicableCaps(config, { person: 'ada', repo: 'acme/app', agent: 'explore' });
    expect(spendVerdict(caps, { person: 1 }, now)).toEqual({
      kind: 'admit',
      runCap: { usd: 2, boundedBy: 'the $2.00 per-run cap of repository acme/app' },
    });
    expect(spendVerdict(caps, { person: 19.5 }, now)).toEqual({
      kind: 'admit',
      runCap: { usd: 0.5, boundedBy: 'what was left ($0.5000) of the $20.00 daily cap of person ada' },
    });
    expect(spendVerdict([], {}, now)).toEqual({ kind: 'admit' });
  });

  it('days are UTC; a Slack thread names its channel', () => {
    expect(spendDay(now)).toEqual({ start: Date.UTC(2026, 2, 10), resetsAt: Date.UTC(2026, 2, 11) });
    for (const day of [Date.UTC(1970, 0, 1), Date.UTC(2024, 1, 29), Date.UTC(2026, 11, 31), Date.UTC(2100, 2, 1)]) {
      expect(utcDate(day)).toBe(new Date(day).toISOString().slice(0, 10));
    }
    expect(channelThreadPrefix('thread:slack:T1:C1:1700000000.000100', 'C1')).toBe('thread:slack:T1:C1:');
    expect(channelThreadPrefix('thread:api:abc', 'C1')).toBeUndefined();
  });
});

describe('reservations', () => {
  const repoCap = [{ kind: 'repo' as const, id: 'acme/app', dailyUsd: 3 }];

  it('admits a unit only when its round fits beside what is spent and reserved, and holds exactly the round', () => {
    expect(reserveVerdict(repoCap, { repo: { spentUsd: 0.5, reservedUsd: 1 } }, { kind: 'unit', atLeastUsd: 1 }, now)).toEqual({
      kind: 'admit',
      runCap: { usd: 1, boundedBy: "a round's allowance (spend.reserve.unitRoundUsd)" },
    });
    const refused = reserveVerdict(repoCap, { repo: { spentUsd: 0.5, reservedUsd: 2 } }, { kind: 'unit', atLeastUsd: 1 }, now);
    expect(refused).toMatchObject({ kind: 'refuse', code: 'spend_cap', spentUsd: 0.5, reservedUsd: 2, neededUsd: 1, capUsd: 3 });
    expect(refused.kind === 'refuse' && refused.reply).toBe(
      'Not started: Runs on acme/app have spent $0.5000 today and $2.00 is reserved by work in progress, and its daily spend cap is $3.00; ' +
        "a ship unit's round needs $1.00. The cap resets at 00:00 UTC on 2026-03-11 (in 6 h 30 min); reserved money is released as that work settles. " +
        'An operator can raise it (`spend.repos` in switchboard.yaml).',
    );
  });

  it("bounds a run by what is left once others' reservations are counted, at most its configured reservation", () => {
    const caps = [{ kind: 'person' as const, id: 'ada', dailyUsd: 20, runUsd: 4 }];
    expect(reserveVerdict(caps, { person: { spentUsd: 10, reservedUsd: 8 } }, { kind: 'run' }, now)).toEqual({
      kind: 'admit',
      runCap: { usd: 2, boundedBy: 'what was left ($2.00) of the $20.00 daily cap of person ada' },
    });
    expect(reserveVerdict(caps, { person: { spentUsd: 1, reservedUsd: 0 } }, { kind: 'run', upToUsd: 0.5 }, now)).toEqual({
      kind: 'admit',
      runCap: { usd: 0.5, boundedBy: 'the $0.5000 a run reserves (spend.reserve.runUsd)' },
    });
    expect(reserveVerdict(caps, { person: { spentUsd: 12, reservedUsd: 8 } }, { kind: 'run' }, now)).toMatchObject({
      kind: 'refuse',
      reservedUsd: 8,
    });
  });
});
