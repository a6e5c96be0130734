/**
 * The contract of `spendLedgerWorkflow`, the one entity per deployment (its task queue) that
 * holds the money reserved by work in progress: a start reserves against the daily caps it falls
 * under before it spends (`reserve`, an update: the answer admits with the reservation or refuses
 * with the amount and the reset time), its holder's settling releases it (`release`), and the
 * ledger releases what closed work still holds (`sweep`, also on a timer). Spent money is summed
 * from Temporal as before (the runs' records and `status`); docs/models.md "Reservations".
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { decimal, listOf, nonBlank, object, oneOf, optional, text, type Fields, type Shape } from './shape';
import { workflowType } from './workflow-type';

// What the spend caps decide with (agents/spend-caps.ts makes the decisions): the scope of a
// start, the caps that apply to it, a start's ask and the verdict.

export type SpendScopeKind = 'person' | 'channel' | 'repo' | 'agent';

/** Who asks, where, on what, with which agent. */
export interface SpendScope {
  person: string;
  /** The Slack channel id (a channel cap needs it). */
  channel?: string;
  repo?: string;
  agent: string;
}

export interface ApplicableCap {
  kind: SpendScopeKind;
  id: string;
  dailyUsd?: number;
  runUsd?: number;
}

/** A run's money bound (the same shape as the run contract's `SpendCap`). */
export interface RunSpendCap {
  usd: number;
  boundedBy: string;
}

export type SpendVerdict =
  | { kind: 'admit'; runCap?: RunSpendCap }
  | {
      kind: 'refuse';
      code: 'spend_cap';
      /** The answer in the conversation: who spent how much against which cap, and when it resets. */
      reply: string;
      scope: SpendScopeKind;
      id: string;
      spentUsd: number;
      capUsd: number;
      /** When the cap resets (ms since the epoch): the next midnight UTC. */
      resetsAt: number;
      /** Money reserved by work in progress against this cap (absent: none). */
      reservedUsd?: number;
      /** What this start needed to fit (a unit's round; absent: anything above nothing). */
      neededUsd?: number;
    };

/** What a start asks the ledger for. */
export interface ReserveAsk {
  /** A run (bounded by what it reserves) or a ship unit (a round's allowance at a time). */
  kind: 'run' | 'unit';
  /** Reserve at most this (a run: `spend.reserve.runUsd`). */
  upToUsd?: number;
  /** Admit only when this much fits under every daily cap (a unit: what it spent plus a round's allowance). */
  atLeastUsd?: number;
}

/** The ledger of a deployment: one per task queue, so deployments sharing a namespace keep their own. */
export function spendLedgerId(taskQueue: string): string {
  return `spend-ledger:${taskQueue}`;
}

/** One start's ask: who would hold the money, under which caps, and how much. */
export interface SpendReserveRequest extends ReserveAsk {
  /**
   * The workflow that spends: a run (its `task` children are under its id) or a ship unit (its
   * runs are under its id). One reservation per holder: asking again replaces it (a unit's next round).
   */
  holder: string;
  /** Who asks (a thread, a plan, a door, the unit itself), for the ledger's list. */
  by: string;
  scope: SpendScope;
  /** The caps that apply to `scope` (agents/spend-caps.ts `applicableCaps`), as the asker's configuration says. */
  caps: ApplicableCap[];
  /** The conversation: a Slack thread's id names its channel, whose runs a channel cap sums. */
  threadId: string;
}

/** The `release` signal: the holder settled, having spent `spentUsd` (absent: unknown; Temporal's records say). */
export interface SpendRelease {
  holder: string;
  spentUsd?: number;
  by?: string;
}

/** Money held for work in progress. */
export interface SpendHold {
  holder: string;
  kind: ReserveAsk['kind'];
  by: string;
  scope: SpendScope;
  caps: ApplicableCap[];
  threadId: string;
  usd: number;
  boundedBy: string;
  /** When it was first reserved (epoch ms, workflow time). */
  since: number;
  /** When it was last reserved or extended. */
  at: number;
}

/** A holder that released with what it spent, counted at that until Temporal's visibility surely lists its runs. */
export interface SpendSettled {
  holder: string;
  scope: SpendScope;
  caps: ApplicableCap[];
  threadId: string;
  usd: number;
  at: number;
}

/** The `reserve` update's answer: the verdict, and for an admitted start the money it holds (absent: no daily cap applies). */
export type SpendReservation = SpendVerdict & { held?: number };

export interface SpendLedgerState {
  holds: SpendHold[];
  settled: SpendSettled[];
  /** Reservations released because their holder closed without releasing (terminated, reset away, never started). */
  sweptHolders: number;
  /** When the ledger last looked at its holders (epoch ms), if it has. */
  sweptAt?: number;
}

export interface SpendLedgerInput {
  /** How often the ledger looks for holders that closed without releasing (default 60 s). */
  sweepSeconds?: number;
  /** Continue-as-new past this many history events (default 2,000; tests lower it). */
  historyLimit?: number;
  carry?: SpendLedgerState;
}

const SCOPE: Fields = { person: nonBlank(), channel: optional(text()), repo: optional(text()), agent: nonBlank() };
const CAP: Fields = {
  kind: oneOf(['person', 'channel', 'repo', 'agent']),
  id: nonBlank(),
  dailyUsd: optional(decimal(0)),
  runUsd: optional(decimal(0)),
};

/** The shape the ledger checks a `reserve` against. */
export const SPEND_RESERVE_SHAPE: Shape = object({
  holder: nonBlank(),
  by: nonBlank(),
  kind: oneOf(['run', 'unit']),
  scope: object(SCOPE),
  caps: listOf(object(CAP)),
  threadId: text(),
  upToUsd: optional(decimal(0)),
  atLeastUsd: optional(decimal(0)),
});

/** The shape the ledger checks a `release` against. */
export const SPEND_RELEASE_SHAPE: Shape = object({ holder: nonBlank(), spentUsd: optional(decimal(0)), by: optional(text()) });

/** Holds `request.holder`'s reservation, or refuses the start (code `spend_cap`, the amount, the reset time). */
export const reserveSpendUpdate = defineUpdate<SpendReservation, [SpendReserveRequest]>('reserve');
/** The holder settled: its reservation goes, and what it spent counts until visibility lists its runs. */
export const releaseSpendSignal = defineSignal<[SpendRelease]>('release');
/** The `sweep` update's input: who asks (it may also come with no input). */
export interface SpendSweep {
  by?: string;
}

/** The shape the ledger checks a `sweep` against. */
export const SPEND_SWEEP_SHAPE: Shape = object({ by: optional(text()) });

/** Releases what holders that have closed still hold, and answers the ledger as it is then. */
export const sweepSpendUpdate = defineUpdate<SpendLedgerState, [SpendSweep]>('sweep');
export const spendLedgerQuery = defineQuery<SpendLedgerState>('state');

export type SpendLedgerWorkflow = (input: SpendLedgerInput) => Promise<void>;
/** Started (update-with-start) on `spend-ledger:<task queue>` by the first start that reserves. */
export const spendLedgerWorkflowType = workflowType<SpendLedgerWorkflow>('spendLedgerWorkflow');
