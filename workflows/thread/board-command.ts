import type { AgentSetup } from '../../activities/agents/agent-setup';
import type { EffectResult, ReplyInput } from '../contracts/status';
import {
  admitBoard,
  admitStart,
  boardPolicy,
  channelBoard,
  entryLine,
  repoBoardId,
  type BoardPolicy,
  type BoardSubject,
} from '../../agents';
import type { BoardActivityTypes } from '../activity-proxies';
import type { MessageOutcome, ReplyTarget, RunRecord, ThreadMessage } from '../contracts';
import type { BoardCommand } from './decide';
import { personOf } from './decide';

/** The `patched()` id of a thread that reads slash commands (agents/commands.ts); threads recorded before read them as text. */
export const THREAD_SLASH_COMMANDS = 'thread-slash-commands';
/** The `patched()` id of a thread that asks its repository's board to consolidate a run that ended with work worth keeping. */
export const THREAD_RUN_CONSOLIDATES = 'thread-run-consolidates';

/** Tool calls a run must have made for its work to be worth a consolidation (a plain answer teaches the board nothing). */
export const WORTH_KEEPING_CALLS = 3;

export interface BoardCommandContext {
  setup: AgentSetup;
  message: ThreadMessage;
  replyTarget: ReplyTarget;
  threadId: string;
  repo?: string;
  activities: Pick<BoardActivityTypes, 'readBoard' | 'changeBoard' | 'requestConsolidation'>;
  deliverReply(reply: ReplyInput): Promise<EffectResult>;
}

/** The board a conversation's work is on: its repository's (from the settings the thread read), else its Slack channel's. */
export function conversationBoard(
  setup: Pick<AgentSetup, 'repositoryBoards' | 'channelBoards'>,
  repo: string | undefined,
  target: ReplyTarget,
): BoardSubject | undefined {
  if (repo) {
    const policy = setup.repositoryBoards?.[repo.toLowerCase()] ?? boardPolicy(repoBoardId(repo), undefined);
    return { boardId: policy.boardId, repo, policy };
  }
  const channel = target.kind === 'slack' ? channelBoard(setup.channelBoards, target.team, target.channel) : undefined;
  return channel ? { boardId: channel.boardId, policy: channel } : undefined;
}

/**
 * Answers `/board …` and `/subconscious run` in the conversation, without a run: each asks the one
 * admission (agents/admission.ts `admitBoard`, and `admitStart` for rem-agent) as the person who
 * wrote it, then reads or changes the board through its activities, and says the outcome in one
 * message. A change's update id is the message's, so a redelivered message changes nothing twice.
 */
export async function answerBoardCommand(command: BoardCommand, ctx: BoardCommandContext): Promise<MessageOutcome> {
  const reply = await boardReply(command, ctx);
  await ctx.deliverReply({
    effectKey: `${ctx.threadId}/reply/${ctx.message.messageId}`,
    replyTarget: ctx.replyTarget,
    text: reply.text,
    acknowledge: reply.code ? 'refused' : 'accepted',
  });
  return reply.code
    ? { messageId: ctx.message.messageId, kind: 'refused', reply: reply.text, code: reply.code }
    : { messageId: ctx.message.messageId, kind: 'answered', reply: reply.text };
}

async function boardReply(command: BoardCommand, ctx: BoardCommandContext): Promise<{ text: string; code?: string }> {
  const { setup, message } = ctx;
  const subject = conversationBoard(setup, ctx.repo, ctx.replyTarget);
  if (!subject)
    return {
      text: 'This conversation has no team board: name a repository (in owner/name: /board), or ask in a channel whose board is on (board.channels).',
      code: 'board_off',
    };
  const person = personOf(message);
  const where = subject.repo ?? 'this channel';
  const action = command.kind === 'subconscious' ? 'consolidate' : command.action === 'list' ? 'read' : command.action;
  const admitted = admitBoard(setup, person, subject, action);
  if (!admitted.ok) return { text: admitted.message, code: admitted.code };

  if (command.kind === 'subconscious') {
    const rem = admitStart(setup, { person, agent: 'rem-agent', board: subject.boardId, ...(subject.repo ? { repo: subject.repo } : {}) });
    if (!rem.ok) return { text: rem.message, code: rem.code };
    await ctx.activities.requestConsolidation({
      boardId: subject.boardId,
      request: {
        key: `${ctx.threadId}/subconscious/${message.messageId}`,
        trigger: 'command',
        sources: [ctx.threadId],
        requester: message.requester,
        replyTarget: ctx.replyTarget,
        threadId: ctx.threadId,
      },
    });
    return {
      text:
        `Started rem-agent in the background for the team board of ${where} (${subject.boardId}): it reads this conversation's work ` +
        `and ${admitted.keeps ? 'keeps' : 'proposes'} what the next run should know. What it changes is said here when it ends.`,
    };
  }
  if (command.action === 'list') return { text: await listing(ctx, subject.boardId, where, admitted.keeps) };
  const actor = { kind: 'person' as const, id: message.requester.id, keeps: admitted.keeps };
  const key = `${ctx.threadId}/board/${message.messageId}`;
  const change =
    command.action === 'add'
      ? { key, actor, action: 'add' as const, kind: command.entryKind, text: command.text }
      : command.action === 'keep'
        ? { key, actor, action: 'keep' as const, entryId: command.entryId }
        : { key, actor, action: 'retire' as const, entryId: command.entryId, ...(command.reason ? { reason: command.reason } : {}) };
  const outcome = await ctx.activities.changeBoard({ boardId: subject.boardId, change, updateId: key });
  if (!outcome.ok) return { text: `The team board of ${where} did not take that: ${outcome.refused}.`, code: 'board_change_refused' };
  return { text: `Team board of ${where}: ${outcome.result.message}.\n${entryLine(outcome.result.entry)}` };
}

async function listing(ctx: BoardCommandContext, boardId: string, where: string, keeper: boolean): Promise<string> {
  const read = await ctx.activities.readBoard({ boardId });
  if (read.entries.length === 0) return `The team board of ${where} (${boardId}) has no entries yet.`;
  const kept = read.entries.filter((entry) => entry.state === 'kept');
  const proposed = read.entries.filter((entry) => entry.state === 'proposed');
  return [
    `Team board of ${where} (${boardId}): ${kept.length} kept, read by every run here; ${proposed.length} proposed.`,
    ...kept.map((entry) => `- ${entryLine(entry)}`),
    ...proposed.map((entry) => `- ${entryLine(entry)}`),
    ...(proposed.length && keeper
      ? [`Keep one with /board keep ${proposed[0].id}, or retire it with /board retire ${proposed[0].id}.`]
      : []),
  ].join('\n');
}

/**
 * After a thread's run on a board that consolidates runs (`board.consolidate: [runs]`): asks the
 * board for rem-agent over the run when it did work worth keeping (it ended with an answer after
 * some tool calls). The board re-checks its settings and the admission before it runs anything.
 */
export async function consolidateRun(
  record: RunRecord | undefined,
  ctx: Pick<BoardCommandContext, 'setup' | 'message' | 'replyTarget' | 'threadId' | 'repo' | 'activities'>,
  patched: (id: string) => boolean,
): Promise<void> {
  const subject = conversationBoard(ctx.setup, ctx.repo, ctx.replyTarget);
  if (!record || !subject || !worthKeeping(record, subject.policy)) return;
  if (!patched(THREAD_RUN_CONSOLIDATES)) return;
  await ctx.activities
    .requestConsolidation({
      boardId: subject.boardId,
      request: {
        key: `${record.runId}/consolidate`,
        trigger: 'run',
        sources: [record.runId],
        requester: ctx.message.requester,
        replyTarget: ctx.replyTarget,
        threadId: ctx.threadId,
      },
    })
    .catch(() => undefined);
}

function worthKeeping(record: RunRecord, policy: BoardPolicy): boolean {
  if (!policy.enabled || !policy.consolidate.includes('runs') || record.profile.agent === 'rem-agent') return false;
  return record.outcome !== 'failed' && record.outcome !== 'stopped' && record.toolCalls.length >= WORTH_KEEPING_CALLS;
}
