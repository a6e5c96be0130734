import { isCancellation } from '@temporalio/workflow';
import type { MessageOutcome, ReplyTarget } from '../contracts';
import type { StatusActivities } from '../activity-proxies';

/**
 * Runs an answer that needs a service held in Temporal (a board, a plan): when it fails for good
 * (its activities gave up), the person is told in words and the thread goes on taking messages,
 * instead of the thread failing with it. A cancellation is the thread's own and goes on up.
 */
export async function orUnavailable<T extends Omit<MessageOutcome, 'messageId'>>(
  answer: () => Promise<T>,
  ctx: { messageId: string; threadId: string; replyTarget: ReplyTarget; status: Pick<StatusActivities, 'deliverReply'>; what: string },
): Promise<T | MessageOutcome> {
  try {
    return await answer();
  } catch (error) {
    if (isCancellation(error)) throw error;
    const why = error instanceof Error ? error.message : String(error);
    const reply = `${ctx.what} did not work just now (${why}); nothing was changed. Try again in a moment.`;
    await ctx.status
      .deliverReply({
        effectKey: `${ctx.threadId}/reply/${ctx.messageId}`,
        replyTarget: ctx.replyTarget,
        text: reply,
        acknowledge: 'refused',
      })
      .catch(() => undefined);
    return { messageId: ctx.messageId, kind: 'refused', reply, code: 'service_unavailable' };
  }
}
