import type { ReplyTarget } from './common';
import type { RunStatus } from './run-status';

/** One state of a run's status card; `final` marks the last update, with the answer. */
export interface StatusCardInput {
  /** The run's workflow id: one card per run. */
  runId: string;
  /** Effect key of the card's first post (at-most-once); updates are repeatable. */
  effectKey: string;
  replyTarget: ReplyTarget;
  status: RunStatus;
  final: boolean;
  answer?: string;
  /** Link to the run in the Temporal Web UI. */
  webUiUrl?: string;
  /**
   * Keys of earlier posts of this card that were never confirmed: each is looked for and, if it
   * turned up, edited; only when none is there is the card posted under `effectKey`.
   */
  earlierKeys?: string[];
}

export interface ReplyInput {
  effectKey: string;
  replyTarget: ReplyTarget;
  text: string;
  /**
   * This reply accepts or refuses the request that came in: on GitHub the triggering comment
   * gets a reaction (👍 or 👎) as well.
   */
  acknowledge?: 'accepted' | 'refused';
}

export interface EffectResult {
  /**
   * `recorded`: nothing was sent anywhere; the content lives only in durable state (the run's
   * record, the thread's outcomes), which is where an API caller reads it.
   * `logged`: the target has no delivery configured here (a CLI target, or Slack or GitHub
   * without credentials): the content went to the worker's log only, and `reason` says why.
   */
  status: 'confirmed' | 'unconfirmed' | 'refused' | 'recorded' | 'logged';
  reason?: string;
}

/** A plan's card in its conversation: one message per plan, posted at most once and then edited in place. */
export interface PlanCardInput {
  planId: string;
  /** Effect key of the card's first post (at-most-once); updates are repeatable. */
  effectKey: string;
  replyTarget: ReplyTarget;
  /** The card, as markdown: units, dependencies, state, cost. */
  text: string;
}

/**
 * A plan unit's own conversation, opened before the unit starts. In Slack: a top-level message of
 * the plan's channel (after the plan's), the root of the unit's thread; replies there reach the unit.
 */
export interface UnitThreadInput {
  effectKey: string;
  /** The plan's conversation. */
  replyTarget: ReplyTarget;
  planId: string;
  unitId: string;
  text: string;
}

/** The unit's conversation (`replyTarget`), when one was opened; absent: the unit reports where the plan does, or on its PR. */
export type UnitThreadResult = EffectResult & { replyTarget?: ReplyTarget };
