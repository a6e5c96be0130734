import type { SpendConfig } from '../infra/config/spend-section';
import type { ApplicableCap, ReserveAsk, RunSpendCap, SpendScope, SpendScopeKind, SpendVerdict } from '../workflows/contracts/spend';

/**
 * Spend caps as a pure decision: which caps apply to a start (person, channel, repository,
 * agent; per day and per run, in USD), and, given what each capped scope spent today, whether
 * the start is refused (with the amount and when the cap resets) or admitted with a money bound
 * for the run. The admission calls `spendVerdict` for every door; the sums come from Temporal
 * (activities/spend). Days are UTC calendar days.
 */

/** `spend.reserve`'s defaults: a ship unit's round allowance (USD) and how often the ledger sweeps (seconds). */
export const RESERVE_DEFAULTS = { unitRoundUsd: 1, sweepSeconds: 60 } as const;

/** USD spent today, per kind of scope that has a daily cap (absent: not summed). */
export type SpentToday = Partial<Record<SpendScopeKind, number>>;

const ORDER: SpendScopeKind[] = ['person', 'channel', 'repo', 'agent'];
const SECTION: Record<SpendScopeKind, 'people' | 'channels' | 'repos' | 'agents'> = {
  person: 'people',
  channel: 'channels',
  repo: 'repos',
  agent: 'agents',
};

/** The caps that apply to this start: an id's own fields over `*`'s, per kind; kinds with neither are left out. */
export function applicableCaps(config: SpendConfig | undefined, scope: SpendScope): ApplicableCap[] {
  if (!config) return [];
  const caps: ApplicableCap[] = [];
  for (const kind of ORDER) {
    const id = kind === 'person' ? scope.person : kind === 'channel' ? scope.channel : kind === 'repo' ? scope.repo : scope.agent;
    if (!id) continue;
    const section = config[SECTION[kind]] ?? {};
    const own = section[id] ?? {};
    const any = section['*'] ?? {};
    const dailyUsd = own.dailyUsd ?? any.dailyUsd;
    const runUsd = own.runUsd ?? any.runUsd;
    if (dailyUsd === undefined && runUsd === undefined) continue;
    caps.push({ kind, id, ...(dailyUsd !== undefined ? { dailyUsd } : {}), ...(runUsd !== undefined ? { runUsd } : {}) });
  }
  return caps;
}

/** The UTC day `now` falls in: its start (what "today" sums from) and the next midnight (when daily caps reset). */
export function spendDay(now: number): { start: number; resetsAt: number } {
  // Epoch milliseconds have no leap seconds: a UTC day is always 86,400,000 of them.
  const start = Math.floor(now / DAY_MS) * DAY_MS;
  return { start, resetsAt: start + DAY_MS };
}

const DAY_MS = 86_400_000;

/** `2026-03-11` for a UTC midnight (days since the epoch to the civil calendar; no clock, no Date). */
export function utcDate(midnight: number): string {
  const z = Math.floor(midnight / DAY_MS) + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1_460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * Refuse or admit. A daily cap already spent (what the scope spent today ≥ the cap) refuses,
 * naming the amount, the cap and when it resets. Otherwise the run is bounded by the smallest
 * of the per-run caps and what is left of each daily cap, and says which one bounded it.
 */
export function spendVerdict(caps: ApplicableCap[], spent: SpentToday, now: number): SpendVerdict {
  const committed: Committed = Object.fromEntries(
    Object.entries(spent).map(([kind, usd]) => [kind, { spentUsd: usd ?? 0, reservedUsd: 0 }]),
  );
  return reserveVerdict(caps, committed, { kind: 'run' }, now);
}

/** What a capped scope has committed today: spent by work that holds no reservation, and reserved by work in progress. */
export type Committed = Partial<Record<SpendScopeKind, { spentUsd: number; reservedUsd: number }>>;

/**
 * Refuse or admit a start against money already spent and money reserved by work in progress
 * (docs/models.md "Reservations"). A daily cap with nothing left (or less than `atLeastUsd`)
 * refuses, naming what was spent, what is reserved, the cap and when it resets. Otherwise the
 * reservation is the smallest of: what is left of each daily cap, a run's per-run caps,
 * `upToUsd`, and for a unit exactly `atLeastUsd`; it says which one set it.
 */
export function reserveVerdict(caps: ApplicableCap[], committed: Committed, ask: ReserveAsk, now: number): SpendVerdict {
  const { resetsAt } = spendDay(now);
  let bound: RunSpendCap | undefined;
  const consider = (usd: number, boundedBy: string) => {
    if (!bound || usd < bound.usd) bound = { usd: roundUsd(usd), boundedBy };
  };
  const needed = ask.atLeastUsd === undefined ? undefined : roundUsd(ask.atLeastUsd);
  for (const cap of caps) {
    if (cap.dailyUsd !== undefined) {
      const used = roundUsd(committed[cap.kind]?.spentUsd ?? 0);
      const reserved = roundUsd(committed[cap.kind]?.reservedUsd ?? 0);
      const left = roundUsd(cap.dailyUsd - used - reserved);
      if (left <= 0 || (needed !== undefined && left < needed)) {
        return {
          kind: 'refuse',
          code: 'spend_cap',
          reply: refusal(cap, { spent: used, reserved, needed, kind: ask.kind }, cap.dailyUsd, now, resetsAt),
          scope: cap.kind,
          id: cap.id,
          spentUsd: used,
          capUsd: cap.dailyUsd,
          resetsAt,
          ...(reserved > 0 ? { reservedUsd: reserved } : {}),
          ...(needed !== undefined ? { neededUsd: needed } : {}),
        };
      }
      consider(left, `what was left (${usdText(left)}) of the ${usdText(cap.dailyUsd)} daily cap of ${who(cap)}`);
    }
    if (cap.runUsd !== undefined && ask.kind === 'run') consider(cap.runUsd, `the ${usdText(cap.runUsd)} per-run cap of ${who(cap)}`);
  }
  if (ask.kind === 'unit' && needed !== undefined && bound)
    bound = { usd: needed, boundedBy: "a round's allowance (spend.reserve.unitRoundUsd)" };
  if (ask.kind === 'run' && ask.upToUsd !== undefined && bound)
    consider(ask.upToUsd, `the ${usdText(ask.upToUsd)} a run reserves (spend.reserve.runUsd)`);
  return bound ? { kind: 'admit', runCap: bound } : { kind: 'admit' };
}

function who(cap: ApplicableCap): string {
  switch (cap.kind) {
    case 'person':
      return `person ${cap.id}`;
    case 'channel':
      return `channel ${cap.id}`;
    case 'repo':
      return `repository ${cap.id}`;
    case 'agent':
      return `agent ${cap.id}`;
  }
}

function refusal(
  cap: ApplicableCap,
  amounts: { spent: number; reserved: number; needed?: number; kind: ReserveAsk['kind'] },
  limit: number,
  now: number,
  resetsAt: number,
): string {
  const { spent, reserved, needed } = amounts;
  const [spender, capName] =
    cap.kind === 'person'
      ? ['You have', 'your daily spend cap']
      : cap.kind === 'channel'
        ? ['Runs in this channel have', 'its daily spend cap']
        : cap.kind === 'repo'
          ? [`Runs on ${cap.id} have`, 'its daily spend cap']
          : [`${cap.id} runs have`, "the agent's daily spend cap"];
  const held = reserved > 0 ? ` and ${usdText(reserved)} is reserved by work in progress` : '';
  const asks =
    needed !== undefined ? `; ${amounts.kind === 'unit' ? "a ship unit's round needs" : 'this start needs'} ${usdText(needed)}` : '';
  const freed = reserved > 0 ? '; reserved money is released as that work settles' : '';
  return (
    `Not started: ${spender} spent ${usdText(spent)} today${held}, and ${capName} is ${usdText(limit)}${asks}. ` +
    `The cap resets at 00:00 UTC on ${utcDate(resetsAt)} (${inWords(resetsAt - now)})${freed}. ` +
    `An operator can raise it (\`spend.${SECTION[cap.kind]}\` in switchboard.yaml).`
  );
}

/** `in 6 h 12 min`, `in 45 min`. */
function inWords(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? `in ${hours} h ${minutes % 60} min` : `in ${minutes} min`;
}

/** `$5.00`, `$0.0400`: as the card and the CLI show dollars. */
export function usdText(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

function roundUsd(value: number): number {
  return Math.round(value * 1_000_000) / 1_000_000;
}

/**
 * A Slack thread's id names its channel (`thread:slack:<team>:<channel>:<ts>`): the prefix every
 * thread of that channel starts with, for summing the channel's runs; undefined elsewhere.
 */
export function channelThreadPrefix(threadId: string, channel: string): string | undefined {
  const marker = `:${channel}:`;
  const at = threadId.indexOf(marker);
  return threadId.startsWith('thread:slack:') && at > 0 ? threadId.slice(0, at + marker.length) : undefined;
}
