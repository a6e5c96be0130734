import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { ApplicableCap, SpendScope, SpendScopeKind, SpendVerdict } from '../../workflows/contracts/spend';
import { RESERVE_DEFAULTS, applicableCaps, channelThreadPrefix, spendDay, spendVerdict, type SpentToday } from '../../agents/spend-caps';
import type { SpendConfig } from '../../infra/config/spend-section';
import { readSpends, runsQuery, type RunSpend, type SpendMemo } from '../../infra/run-spends';
import { visibilityQuery } from '../../infra/visibility';
import {
  reserveSpendUpdate,
  spendLedgerId,
  spendLedgerWorkflowType,
  type SpendReservation,
  type SpendReserveRequest,
} from '../../workflows/contracts';

export interface SpendActivityDeps {
  client: Client;
  /** This deployment's task queue: its runs are summed, and its ledger is `spend-ledger:<task queue>`. */
  taskQueue: string;
  /** The `spend` section (none: nothing is capped). */
  config?: SpendConfig;
}

export interface SpendCheckInput {
  scope: SpendScope;
  /** The thread asking (a Slack thread's id names its channel). */
  threadId: string;
  /** The workflow's time of the decision: which UTC day is summed. */
  now: number;
}

/** What the ledger sums before it decides a start (workflows/spend/ledger-book.ts). */
export interface SumSpendsInput {
  /** The daily caps of the start. */
  caps: ApplicableCap[];
  threadId: string;
  now: number;
  /** Holders the ledger counts itself: their runs (the holder's id, or under it) are summed apart. */
  holders: string[];
}

/**
 * Spend caps and reservations from Temporal. `checkSpendCaps` is the check threads made before
 * reservations (their replayed histories still call it): sums what each capped scope spent today
 * (the runs listed by visibility, each by its record or its `status` query) and answers with the
 * pure `spendVerdict`. The ledger workflow sums with `sumSpends` (holders' runs apart) and looks
 * at its holders with `lookAtHolders`; a start asks the ledger with `reserveSpend`. Closed runs'
 * spends are kept in memory (a record never changes).
 */
export function createSpendActivities(deps: SpendActivityDeps) {
  const memo: SpendMemo = new Map();
  const sum = async (caps: ApplicableCap[], threadId: string, now: number) => {
    const matchers = caps.flatMap((cap) => {
      const matcher = matcherFor(cap.kind, cap.id, threadId);
      return matcher ? [{ kind: cap.kind, ...matcher }] : [];
    });
    const where = matchers.map((matcher) => matcher.clause).join(' OR ');
    const { start } = spendDay(now);
    const { spends } = where ? await readSpends(deps.client, runsQuery(deps.taskQueue, new Date(start), where), memo) : { spends: [] };
    return { matchers, spends };
  };
  return {
    async checkSpendCaps(input: SpendCheckInput): Promise<SpendVerdict> {
      const caps = applicableCaps(deps.config, input.scope);
      const daily = caps.filter((cap) => cap.dailyUsd !== undefined);
      const spent: SpentToday = {};
      if (daily.length > 0) {
        const { matchers, spends } = await sum(daily, input.threadId, input.now);
        for (const matcher of matchers) {
          spent[matcher.kind] = spends.filter(matcher.matches).reduce((total, spend) => total + spend.cost.usd, 0);
        }
      }
      return spendVerdict(caps, spent, input.now);
    },

    /** Today's spend per capped kind by runs under no listed holder, and each holder's runs' spend. */
    async sumSpends(input: SumSpendsInput): Promise<{ spent: SpentToday; byHolder: Record<string, number> }> {
      const { matchers, spends } = await sum(input.caps, input.threadId, input.now);
      const holderOf = (spend: RunSpend) => input.holders.find((holder) => spend.runId === holder || spend.runId.startsWith(`${holder}/`));
      const spent: SpentToday = {};
      const byHolder: Record<string, number> = {};
      for (const spend of spends) {
        const holder = holderOf(spend);
        if (holder) byHolder[holder] = round((byHolder[holder] ?? 0) + spend.cost.usd);
      }
      for (const matcher of matchers)
        spent[matcher.kind] = round(
          spends.filter((spend) => matcher.matches(spend) && !holderOf(spend)).reduce((total, spend) => total + spend.cost.usd, 0),
        );
      return { spent, byHolder };
    },

    /** Which holders have closed (any end: completed, failed, terminated, reset away) and which do not exist. */
    async lookAtHolders(input: { holders: string[] }): Promise<{ closed: string[]; missing: string[] }> {
      const closed: string[] = [];
      const missing: string[] = [];
      for (const holder of input.holders) {
        try {
          const description = await deps.client.workflow.getHandle(holder).describe();
          if (description.status.name !== 'RUNNING') closed.push(holder);
        } catch (error) {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
          missing.push(holder);
        }
      }
      return { closed, missing };
    },

    /** Asks the deployment's ledger (started by the first ask) to hold a start's money, or to refuse it. */
    async reserveSpend(request: SpendReserveRequest): Promise<SpendReservation> {
      return reserveThroughLedger(deps, request);
    },
  };
}

export type SpendActivities = ReturnType<typeof createSpendActivities>;

/** `reserve` on the deployment's ledger, starting it when it is not running (a door calls this directly). */
export async function reserveThroughLedger(deps: SpendActivityDeps, request: SpendReserveRequest): Promise<SpendReservation> {
  const sweepSeconds = deps.config?.reserve?.sweepSeconds ?? RESERVE_DEFAULTS.sweepSeconds;
  return deps.client.workflow.executeUpdateWithStart(reserveSpendUpdate, {
    args: [request],
    startWorkflowOperation: new WithStartWorkflowOperation(spendLedgerWorkflowType, {
      workflowId: spendLedgerId(deps.taskQueue),
      taskQueue: deps.taskQueue,
      args: [{ sweepSeconds }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      staticSummary: 'Spend ledger: money reserved by work in progress, against the daily spend caps',
    }),
  });
}

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

function round(value: number): number {
  return Math.round(value * 1_000_000) / 1_000_000;
}
