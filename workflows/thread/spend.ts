import type { AgentSetup } from '../../activities/agents/agent-setup';
import type { SpendCheckInput } from '../../activities/spend';
import { applicableCaps, spendVerdict, type SpendScope, type SpendVerdict } from '../../agents/spend-caps';
import type { ThreadMessage } from '../contracts';
import type { Decision } from './decide';

/**
 * The marker that puts the spend-cap check into a thread's history (only where caps are
 * configured). Threads recorded before it started their runs unchecked; remove the `false`
 * branch once no thread started before this change can still be running (docs/versioning.md).
 */
export const SPEND_CAPS_PATCH = 'spend-caps';

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
