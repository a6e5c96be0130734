import type { RunSpend } from '../infra/run-spends';
import type { SpendHold, TokenTotals } from '../workflows/contracts';

export type { RunSpend };

export const USAGE_GROUPS = ['person', 'agent', 'repo', 'thread', 'unit', 'plan'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

export interface UsageRow {
  key: string;
  runs: number;
  tokens: TokenTotals;
  usd: number;
  /** What `usd` would have been with no prompt cache (runs recorded before it was kept count at their cost). */
  withoutCacheUsd: number;
  /** Input tokens served from the prompt cache, over all input tokens (0 to 1). */
  cacheShare: number;
  /** Models among these runs' turns without a price (their tokens count, their cost does not). */
  unpriced: string[];
  /** Calls of MCP servers' tools (runs recorded before MCP count none). */
  mcpCalls: number;
}

/**
 * What a run belongs to under a grouping. Units and plans are read from the ids: a unit's runs
 * are `unit:…/<kind>-<n>-<m>` (and their tasks below them); a plan's units work in threads
 * `plan:<repo>:<slug>/<key>`. Runs outside any unit or plan are `(none)`.
 */
export function groupKey(spend: RunSpend, group: UsageGroup): string {
  switch (group) {
    case 'person':
      return spend.person;
    case 'agent':
      return spend.agent;
    case 'repo':
      return spend.repo ?? '(none)';
    case 'thread':
      return spend.thread;
    case 'unit':
      return spend.runId.startsWith('unit:') ? firstTwoSegments(spend.runId) : '(none)';
    case 'plan':
      return spend.thread.startsWith('plan:') ? firstTwoSegments(spend.thread) : '(none)';
  }
}

/** `unit:acme/app#7/coding-1-1/task-1` → `unit:acme/app#7` (the repository name holds the first slash). */
function firstTwoSegments(id: string): string {
  return id.split('/').slice(0, 2).join('/');
}

/** Totals per key, largest cost first (then most tokens), and the grand total as `key: 'total'`. */
export function usageTotals(spends: RunSpend[], group: UsageGroup): { rows: UsageRow[]; total: UsageRow } {
  const rows = new Map<string, UsageRow>();
  const total = emptyRow('total');
  for (const spend of spends) {
    const key = groupKey(spend, group);
    const row = rows.get(key) ?? emptyRow(key);
    rows.set(key, row);
    add(row, spend);
    add(total, spend);
  }
  const sorted = [...rows.values()].sort((a, b) => b.usd - a.usd || totalTokens(b) - totalTokens(a) || a.key.localeCompare(b.key));
  return { rows: sorted, total };
}

function emptyRow(key: string): UsageRow {
  return {
    key,
    runs: 0,
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    usd: 0,
    withoutCacheUsd: 0,
    cacheShare: 0,
    unpriced: [],
    mcpCalls: 0,
  };
}

function add(row: UsageRow, spend: RunSpend): void {
  row.runs += 1;
  row.tokens.input += spend.tokens.input;
  row.tokens.output += spend.tokens.output;
  row.tokens.cacheRead += spend.tokens.cacheRead;
  row.tokens.cacheWrite += spend.tokens.cacheWrite;
  row.usd = Math.round((row.usd + spend.cost.usd) * 1_000_000) / 1_000_000;
  row.withoutCacheUsd = Math.round((row.withoutCacheUsd + (spend.cost.withoutCacheUsd ?? spend.cost.usd)) * 1_000_000) / 1_000_000;
  const input = row.tokens.input + row.tokens.cacheRead + row.tokens.cacheWrite;
  row.cacheShare = input > 0 ? Math.round((row.tokens.cacheRead / input) * 1_000) / 1_000 : 0;
  for (const model of spend.cost.unpriced) if (!row.unpriced.includes(model)) row.unpriced.push(model);
  row.mcpCalls += spend.cost.mcpCalls ?? 0;
}

function totalTokens(row: UsageRow): number {
  return row.tokens.input + row.tokens.output + row.tokens.cacheRead + row.tokens.cacheWrite;
}

/** `7d`, `12h`, `30m`, `2w` before `now`, or an ISO date; throws a one-line reason otherwise. */
export function parseSince(text: string, now: Date): Date {
  const match = /^(\d+)([mhdw])$/.exec(text.trim());
  if (match) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[match[2] as 'm' | 'h' | 'd' | 'w'];
    return new Date(now.getTime() - Number(match[1]) * unit);
  }
  const date = new Date(text);
  if (/^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(date.getTime())) return date;
  throw new Error(`--since: expected a span like 7d, 12h, 30m, 2w or a date like 2026-01-31, got '${text}'`);
}

/** Money held by work in progress under one key of a grouping. */
export interface ReservedRow {
  key: string;
  usd: number;
  holders: number;
}

/**
 * What a reservation belongs to under a grouping, as `groupKey` reads a run: its person, agent
 * (a unit holds as `ship`), repository, thread, unit (a unit's own), plan (its units' threads).
 */
export function holdKey(hold: SpendHold, group: UsageGroup): string {
  switch (group) {
    case 'person':
      return hold.scope.person;
    case 'agent':
      return hold.scope.agent;
    case 'repo':
      return hold.scope.repo ?? '(none)';
    case 'thread':
      return hold.threadId;
    case 'unit':
      return hold.kind === 'unit' ? hold.holder : hold.holder.startsWith('unit:') ? firstTwoSegments(hold.holder) : '(none)';
    case 'plan':
      return hold.threadId.startsWith('plan:') ? firstTwoSegments(hold.threadId) : '(none)';
  }
}

/** Reserved money per key, largest first, and the total. */
export function reservedTotals(holds: SpendHold[], group: UsageGroup): { rows: ReservedRow[]; total: ReservedRow } {
  const rows = new Map<string, ReservedRow>();
  const total: ReservedRow = { key: 'total', usd: 0, holders: 0 };
  for (const hold of holds) {
    const key = holdKey(hold, group);
    const row = rows.get(key) ?? { key, usd: 0, holders: 0 };
    rows.set(key, row);
    for (const each of [row, total]) {
      each.usd = Math.round((each.usd + hold.usd) * 1_000_000) / 1_000_000;
      each.holders += 1;
    }
  }
  return { rows: [...rows.values()].sort((a, b) => b.usd - a.usd || a.key.localeCompare(b.key)), total };
}
