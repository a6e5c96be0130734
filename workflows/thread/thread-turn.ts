import { problemWith, THREAD_MESSAGE_SHAPE, type ThreadMessage } from '../contracts';
import { answerBoardCommand } from './board-command';
import { boardAt } from './board-context';
import { MessageDecider, type Decided } from './message-decider';
import { RunTurn } from './run-turn';
import { shipStart } from './ship-start';
import type { ThreadContext } from './thread-effects';
import { orUnavailable } from './unavailable';

/**
 * One message's turn, from the queue to its answer: checked whole, decided (message-decider.ts),
 * then answered as its decision says — a refusal in words, a ship unit started (or steered), the
 * board's command answered, or a run started and followed to its answer (run-turn.ts).
 */
export class ThreadTurn {
  private readonly decider: MessageDecider;
  private readonly runs: RunTurn;

  constructor(private readonly ctx: ThreadContext) {
    this.decider = new MessageDecider(ctx.memory, ctx.effects);
    this.runs = new RunTurn(ctx);
  }

  /**
   * Decides and answers one message taken off the queue. False when it was answered before a
   * decision (malformed, a review of a commit already reviewed, a plan): the thread then takes
   * the next one at once; true after a decision's answer, when the thread may continue-as-new.
   */
  async take(message: ThreadMessage): Promise<boolean> {
    const { memory, input } = this.ctx;
    // A message queued before messages were checked whole (carried, or accepted by an older
    // worker) is answered as refused rather than failing the thread's task on every retry.
    const malformed = problemWith(THREAD_MESSAGE_SHAPE, message);
    if (malformed) {
      memory.remember({
        messageId: String(message?.messageId),
        kind: 'refused',
        code: 'message_invalid',
        reply: `Not taken: ${malformed}.`,
      });
      return false;
    }
    const replyTarget = message.replyTarget ?? input.replyTarget;
    // An automatic review of a commit this conversation already reviewed is not run again.
    if (message.review && memory.reviews.reviewed(message.review.headSha)) {
      memory.remember({ messageId: message.messageId, kind: 'duplicate' });
      return false;
    }
    const decided = await this.decider.decide(message, replyTarget);
    if (!decided) return false;
    await this.answer(decided);
    return true;
  }

  private async answer(decided: Decided): Promise<void> {
    const { memory, effects } = this.ctx;
    const { message, replyTarget, setup, repo, decision } = decided;
    const { threadId } = memory;
    const effectKey = `${threadId}/reply/${message.messageId}`;
    if (decision.kind === 'refused' && message.review && message.review.trigger !== 'review_requested') {
      // A review nobody asked for in words is not answered with a refusal: it is recorded, and logged by the door.
      memory.remember({ messageId: message.messageId, kind: 'refused', reply: decision.reply, code: decision.code });
    } else if (decision.kind === 'refused') {
      memory.remember({ messageId: message.messageId, kind: 'refused', reply: decision.reply, code: decision.code });
      await effects.status.deliverReply({ effectKey, replyTarget, text: decision.reply, acknowledge: 'refused' });
    } else if (decision.kind === 'ship') {
      const outcome = await effects.startShipUnit(
        shipStart(decision.request, decision.profile, message, replyTarget, threadId),
        message,
        setup,
      );
      memory.remember({ messageId: message.messageId, agent: 'ship', ...outcome });
      await effects.status.deliverReply({
        effectKey,
        replyTarget,
        text: outcome.reply,
        acknowledge: outcome.kind === 'refused' ? 'refused' : 'accepted',
      });
    } else if (decision.kind === 'board') {
      const board = boardAt(setup, threadId, effects.status, effects.boards, { message, replyTarget, repo });
      const unavailable = { messageId: message.messageId, threadId, replyTarget, status: effects.status, what: 'The board' };
      memory.remember(await orUnavailable(() => answerBoardCommand(decision.command, board), unavailable));
    } else {
      await this.runs.run({ ...decided, decision });
    }
  }
}
