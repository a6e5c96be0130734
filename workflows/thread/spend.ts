import { isCancellation, patched } from '@temporalio/workflow';
import type { AgentSetup } from '../../activities/agents/agent-setup';
import type { SpendCheckInput } from '../../activities/spend';
import type { SpendScope, SpendVerdict } from '../contracts/spend';
import { applicableCaps, spendVerdict } from '../../agents/spend-caps';
import { spendCheck, spendLedger } from '../activity-proxies';
import type { SpendCap, ThreadMessage } from '../contracts';
import type { Decision } from './decide';

/**
 * The marker that puts the spend-cap check into a thread's history (only where caps are
 * configured). Threads recorded before it started their runs unchecked; remove the `false`
 * branch once no thread started before this change can still be running (docs/versioning.md).
 */
export const SPEND_CAPS_PATCH = 'spend-caps';

/**
 * The `patched()` id of a thread that reserves a run's money in the spend ledger before it starts
 * it, and releases it when the run ends (docs/models.md "Reservations"); a code change's unit
 * reserves its own first round as it starts. Threads recorded before it only checked today's spend.
 */
export const SPEND_RESERVED_PATCH = 'thread-reserves-spend';

/** A start's money: the decision (refused past a cap), the run's money bound, and the holder to release when it ends. */
export interface ThreadSpend {
  decision: Decision;
  spendCap?: SpendCap;
  /** The run that holds a reservation (released by the thread when it ends). */
  holder?: string;
}

/**
 * The spend caps of one start, where any are configured: under a daily cap a run reserves its money
 * bound (at most `spend.reserve.runUsd`) in the ledger and is bounded by what it holds; a unit is
 * left to reserve its own first round as it starts; only per-run caps are decided here.
 */
export async function threadSpend(
  setup: AgentSetup,
  decision: Decision,
  message: ThreadMessage,
  threadId: string,
  runId: string,
): Promise<ThreadSpend> {
  if ((decision.kind !== 'run' && decision.kind !== 'ship') || !setup.spend || !patched(SPEND_CAPS_PATCH)) return { decision };
  // The caps could not be checked (the ledger or the sums did not answer): refused in words, and
  // the thread goes on taking messages; nothing starts unchecked.
  const spend = setup.spend;
  return checkedSpend({ ...setup, spend }, decision, message, threadId, runId).catch((error: unknown) => {
    if (isCancellation(error)) throw error;
    const why = error instanceof Error ? error.message : String(error);
    return {
      decision: {
        kind: 'refused',
        code: 'service_unavailable',
        reply: `Not started: the spend caps could not be checked just now (${why}). Try again in a moment.`,
        ...(decision.stickyAgent ? { stickyAgent: decision.stickyAgent } : {}),
      },
    };
  });
}

async function checkedSpend(
  setup: AgentSetup & { spend: NonNullable<AgentSetup['spend']> },
  decision: Extract<Decision, { kind: 'run' | 'ship' }>,
  message: ThreadMessage,
  threadId: string,
  runId: string,
): Promise<ThreadSpend> {
  const scope = spendScope(decision, message);
  const caps = applicableCaps(setup.spend, scope);
  if (caps.some((cap) => cap.dailyUsd !== undefined) && patched(SPEND_RESERVED_PATCH)) {
    if (decision.kind === 'ship') return { decision };
    const upToUsd = setup.spend.reserve?.runUsd;
    const verdict = await spendLedger.reserveSpend({
      holder: runId,
      by: threadId,
      kind: 'run',
      ...(upToUsd !== undefined ? { upToUsd } : {}),
      scope,
      caps,
      threadId,
    });
    if (verdict.kind === 'refuse') return { decision: spendRefusal(decision, verdict) };
    return { decision, ...(verdict.runCap ? { spendCap: verdict.runCap } : {}), ...(verdict.held !== undefined ? { holder: runId } : {}) };
  }
  const verdict = await admitSpend(setup, scope, threadId, Date.now(), (check) => spendCheck.checkSpendCaps(check));
  if (verdict.kind === 'refuse') return { decision: spendRefusal(decision, verdict) };
  return { decision, ...(verdict.runCap ? { spendCap: verdict.runCap } : {}) };
}

/** Who asks, where, on what, with which agent: the scopes a start's caps are looked up by. */
export function spendScope(decision: Extract<Decision, { kind: 'run' | 'ship' }>, message: ThreadMessage): SpendScope {
  const repo = decision.profile.repo?.value;
  return {
    person: message.requester.id,
    ...(message.channelId ? { channel: message.channelId } : {}),
    ...(repo ? { repo } : {}),
    agent: decision.kind === 'run' ? decision.agent : 'ship',
  };
}

/**
 * Refuse or admit a start by the spend caps. No cap applies: admitted without a look. Only
 * per-run caps apply: decided here (nothing to sum). A daily cap applies: `check` (the
 * `checkSpendCaps` activity) sums today's spend from Temporal and decides. The admission module
 * (issue 23) is to make this call for every door; today the thread makes it for its own.
 */
export async function admitSpend(
  setup: AgentSetup,
  scope: SpendScope,
  threadId: string,
  now: number,
  check: (input: SpendCheckInput) => Promise<SpendVerdict>,
): Promise<SpendVerdict> {
  const caps = applicableCaps(setup.spend, scope);
  if (caps.length === 0) return { kind: 'admit' };
  if (!caps.some((cap) => cap.dailyUsd !== undefined)) return spendVerdict(caps, {}, now);
  return check({ scope, threadId, now });
}

/** A refused start in the thread's words, keeping the agent the person chose. */
export function spendRefusal(
  decision: Extract<Decision, { kind: 'run' | 'ship' }>,
  verdict: Extract<SpendVerdict, { kind: 'refuse' }>,
): Decision {
  return {
    kind: 'refused',
    reply: verdict.reply,
    code: verdict.code,
    ...(decision.stickyAgent ? { stickyAgent: decision.stickyAgent } : {}),
  };
}
