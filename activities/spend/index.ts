import { type Client } from '@temporalio/client';
import {
  applicableCaps,
  channelThreadPrefix,
  spendDay,
  spendVerdict,
  type SpendScope,
  type SpendScopeKind,
  type SpendVerdict,
  type SpentToday,
} from '../../agents/spend-caps';
import type { SpendConfig } from '../../infra/config/spend-section';
import { readSpends, runsQuery, type RunSpend, type SpendMemo } from '../../infra/run-spends';
import { visibilityQuery } from '../../infra/visibility';

export interface SpendActivityDeps {
  client: Client;
  /** This deployment's task queue: its runs are summed. */
  taskQueue: string;
  /** The `spend` config section (none: nothing is capped). */
  config?: SpendConfig;
}

export interface SpendCheckInput {
  scope: SpendScope;
  /** The thread asking (a Slack thread's id names its channel). */
  threadId: string;
  /** The workflow's time of the decision: which UTC day is summed. */
  now: number;
}

/**
 * The spend-cap check of a start: sums what each capped scope spent today from Temporal (the
 * runs listed by visibility, each by its record or its `status` query), then answers with the
 * pure `spendVerdict`: refuse with the amount and the reset time, or admit with the run's money
 * bound. Closed runs' spends are kept in memory (a record never changes).
 */
export function createSpendActivities(deps: SpendActivityDeps) {
  const memo: SpendMemo = new Map();
  return {
    async checkSpendCaps(input: SpendCheckInput): Promise<SpendVerdict> {
      const caps = applicableCaps(deps.config, input.scope);
      const daily = caps.filter((cap) => cap.dailyUsd !== undefined);
      const spent: SpentToday = {};
      if (daily.length > 0) {
        const matchers = daily.flatMap((cap) => {
          const matcher = matcherFor(cap.kind, cap.id, input.threadId);
          return matcher ? [{ kind: cap.kind, ...matcher }] : [];
        });
        const where = matchers.map((matcher) => matcher.clause).join(' OR ');
        const { start } = spendDay(input.now);
        const { spends } = where ? await readSpends(deps.client, runsQuery(deps.taskQueue, new Date(start), where), memo) : { spends: [] };
        for (const matcher of matchers) {
          spent[matcher.kind] = spends.filter(matcher.matches).reduce((sum, spend) => sum + spend.cost.usd, 0);
        }
      }
      return spendVerdict(caps, spent, input.now);
    },
  };
}

export type SpendActivities = ReturnType<typeof createSpendActivities>;

/** The visibility clause listing a scope's runs, and the test that picks them from a wider list. */
function matcherFor(
  kind: SpendScopeKind,
  id: string,
  threadId: string,
): { clause: string; matches: (spend: RunSpend) => boolean } | undefined {
  switch (kind) {
    case 'person':
      return { clause: visibilityQuery({ Requester: id }), matches: (spend) => spend.person === id };
    case 'agent':
      return { clause: visibilityQuery({ Agent: id }), matches: (spend) => spend.agent === id };
    case 'repo':
      return { clause: visibilityQuery({ Repo: id }), matches: (spend) => spend.repo === id };
    case 'channel': {
      // A channel's runs are its threads' runs; only a Slack thread's id names its channel.
      const prefix = channelThreadPrefix(threadId, id);
      if (!prefix) return undefined;
      return { clause: `Thread STARTS_WITH "${prefix.replace(/["\\]/g, '')}"`, matches: (spend) => spend.thread.startsWith(prefix) };
    }
  }
}
