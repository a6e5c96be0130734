import { workflowInfo } from '@temporalio/workflow';
import type { AgentSetup } from '../../activities/agents/agent-setup';
import { admitStart } from '../../agents';
import type { PlanAsk } from '../../agents/plan-message';
import { plans, units, type StatusActivities } from '../activity-proxies';
import type { MessageOutcome, PlanDraft, ReplyTarget, RunRecord, ThreadMessage } from '../contracts';
import type { PlanFile } from '../contracts/plan-file';
import { conversationOf, personOf } from './decide';

/**
 * The `patched()` id of a thread that starts a plan asked for in its conversation (`plan` and the
 * plan's YAML, from any door). Threads recorded before it decided such a message as any other.
 */
export const THREAD_STARTS_PLANS = 'thread-starts-plans';

/**
 * A plan asked for in a conversation (Slack, GitHub, the API's and MCP's text, the CLI's `ask`):
 * read as the CLI reads a plan file, admitted as `ship` for the person on its repository through
 * the one admission (access, a GitHub actor's role, the model, the sandbox, the repository's
 * agents), then started on its own id with this conversation as its own. Its units each get a
 * conversation of their own (workflows/plan/plan-start.ts). The answer is the outcome to remember
 * and the reply to give.
 */
export async function startAskedPlan(
  ask: PlanAsk,
  message: ThreadMessage,
  replyTarget: ReplyTarget,
  setup: AgentSetup,
  draft?: PlanDraft,
): Promise<Omit<MessageOutcome, 'messageId'> & { reply: string }> {
  const read = await askedPlan(ask, message, draft);
  if ('refused' in read) return read.refused;
  const { plan } = read;
  const conversation = conversationOf(replyTarget);
  const channelRepo = message.channelId ? setup.config.channels[message.channelId]?.defaultRepo : undefined;
  const repo = plan.repo ?? ('repo' in ask ? ask.repo : undefined) ?? conversation.repo ?? channelRepo;
  if (!repo)
    return {
      kind: 'refused',
      code: 'repo_missing',
      reply: 'That plan names no repository: give it `repo: owner/name`, or start the message with `plan in owner/name`.',
    };
  const admitted = admitStart(setup, {
    person: personOf(message),
    agent: 'ship',
    repo,
    ...(plan.model ? { model: plan.model } : {}),
    conversation,
  });
  if (!admitted.ok) return { kind: 'refused', code: admitted.code, reply: admitted.message };
  const planId = `plan:${repo}:${plan.name}`;
  const started = await units.startPlan({
    planId,
    repo,
    units: plan.units,
    replyTarget,
    requester: message.requester,
    threadId: workflowInfo().workflowId,
    ...(plan.model ? { model: plan.model } : {}),
    ...(plan.mergeAuthority !== undefined ? { mergeAuthority: plan.mergeAuthority } : {}),
    effectKey: `${workflowInfo().workflowId}/plan/${message.messageId}`,
  });
  if (started.status === 'running')
    return { kind: 'refused', code: 'plan_running', reply: `Plan ${planId} is still running; it was not started again.` };
  const where =
    replyTarget.kind === 'slack'
      ? 'Each unit reports in a thread of its own in this channel, where a reply steers it; its card here shows them all.'
      : replyTarget.kind === 'github'
        ? 'Each unit reports on its own pull request, where `@switchboard` steers it; the card here shows them all.'
        : 'Each unit is its own workflow, steered and stopped by its id.';
  return {
    kind: 'plan',
    planId,
    agent: 'ship',
    reply: `Started plan ${planId}: ${plan.units.length} unit${plan.units.length === 1 ? '' : 's'} (${plan.units.map((unit) => unit.key).join(', ')}). ${where}`,
  };
}

/** The plan a message asks for: its YAML read as the CLI reads a file, or the draft it confirms (only its requester's). */
async function askedPlan(
  ask: PlanAsk,
  message: ThreadMessage,
  draft: PlanDraft | undefined,
): Promise<{ plan: PlanFile } | { refused: Omit<MessageOutcome, 'messageId'> & { reply: string } }> {
  if ('confirm' in ask) {
    if (!draft) return { refused: { kind: 'refused', code: 'plan_invalid', reply: 'There is no drafted plan here to confirm.' } };
    if (draft.requester !== message.requester.id)
      return {
        refused: {
          kind: 'refused',
          code: 'not_requester',
          reply: `The drafted plan ${draft.plan.name} is for the person who asked for it (${draft.requester}) to confirm; nothing was started.`,
        },
      };
    return { plan: draft.plan };
  }
  const read = await plans.readPlan({ yaml: ask.yaml });
  if ('problems' in read)
    return {
      refused: {
        kind: 'refused',
        code: 'plan_invalid',
        reply: `That plan cannot start:\n${read.problems.map((problem) => `- ${problem}`).join('\n')}`,
      },
    };
  return read;
}

/** The plan a finished run drafted (`plan_draft`) for the person who asked it, to confirm with `plan confirm`. */
export function draftedPlan(record: RunRecord | undefined): PlanDraft | undefined {
  const plan = record?.submissions?.plan_draft as PlanDraft['plan'] | undefined;
  return plan ? { plan, requester: record!.requester.id, runId: record!.runId } : undefined;
}

/** Starts the plan a message asks for and answers in the conversation; the outcome to remember. */
export async function answerPlan(
  ask: PlanAsk,
  message: ThreadMessage,
  replyTarget: ReplyTarget,
  setup: AgentSetup,
  status: Pick<StatusActivities, 'deliverReply'>,
  draft?: PlanDraft,
): Promise<Omit<MessageOutcome, 'messageId'>> {
  const { reply, ...outcome } = await startAskedPlan(ask, message, replyTarget, setup, draft);
  await status.deliverReply({
    effectKey: `${workflowInfo().workflowId}/reply/${message.messageId}`,
    replyTarget,
    text: reply,
    acknowledge: outcome.kind === 'refused' ? 'refused' : 'accepted',
  });
  return { ...outcome, reply };
}
