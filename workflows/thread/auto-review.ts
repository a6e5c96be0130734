import type { Finding } from '../contracts/findings';
import type { AutoReview, ReplyTarget, RunInput, RunRecord, ThreadMessage, ThreadReviews } from '../contracts';
import { earlierReview } from '../unit/review-render';

/** Commits a conversation remembers having reviewed (the oldest drop off). */
export const REVIEWED_KEPT = 50;
/** A push's review waits this long for the next push when the message does not say. */
export const DEFAULT_DEBOUNCE_SECONDS = 60;

const WORDS: Record<AutoReview['trigger'], string> = {
  opened: 'it was opened',
  ready_for_review: 'it is ready for review',
  review_requested: 'a review was requested',
  push: 'new commits were pushed',
};

/** The words an automatic review is decided from: the `review` agent, on this conversation's pull request. */
export function autoReviewText(review: AutoReview): string {
  return `agent:review Review this pull request: ${WORDS[review.trigger]}${review.headSha ? ` (head ${review.headSha.slice(0, 12)})` : ''}.`;
}

/**
 * A pull request conversation's reviews, as its thread keeps them (plain class over the carry):
 * an automatic review waits its turn — a push's for its debounce, each newer push starting the
 * wait again, so a burst of pushes is reviewed once at its last head — and runs when no message
 * is waiting. A commit is reviewed once: a review of a head already reviewed is skipped, and
 * every review run of the conversation posts under the conversation's key, so even one that
 * started anyway finds the earlier review instead of posting a second. The last review's
 * findings go to the next review run, which says which of them the push resolved.
 */
export class ReviewMemory {
  /** Moves on each held review, so a wait for the debounce starts again when a newer push arrives. */
  version = 0;

  constructor(readonly reviews: ThreadReviews) {}

  /** Holds an automatic review until its debounce ends (the latest replaces an earlier one still waiting). */
  hold(message: ThreadMessage, now: number): void {
    const review = message.review!;
    const debounce = review.trigger === 'push' ? (review.debounceSeconds ?? DEFAULT_DEBOUNCE_SECONDS) : 0;
    this.reviews.pending = { message, dueAt: now + debounce * 1_000 };
    this.version += 1;
  }

  /** Milliseconds until the waiting review is due (0: now), or undefined when none waits. */
  waitMs(now: number): number | undefined {
    const pending = this.reviews.pending;
    return pending ? Math.max(0, pending.dueAt - now) : undefined;
  }

  /** The waiting review, taken off the wait. */
  take(): ThreadMessage | undefined {
    const message = this.reviews.pending?.message;
    delete this.reviews.pending;
    return message;
  }

  /** The `state` query's part: the automatic review waiting for its debounce or its turn (absent: none). */
  pendingView(): { pendingReview?: { trigger: NonNullable<ThreadMessage['review']>['trigger']; dueAt: string } } {
    const review = this.reviews.pending?.message.review;
    return review ? { pendingReview: { trigger: review.trigger, dueAt: new Date(this.reviews.pending!.dueAt).toISOString() } } : {};
  }

  reviewed(sha: string | undefined): boolean {
    return sha !== undefined && this.reviews.reviewed.includes(sha);
  }

  /** What a review run on this conversation's pull request is given: the earlier review, and the conversation's key. */
  runExtras(
    agentTools: readonly string[],
    replyTarget: ReplyTarget,
    threadId: string,
    message?: Pick<ThreadMessage, 'review'>,
  ): Pick<RunInput, 'earlierReview' | 'reviewKey' | 'automaticReview'> {
    if (!agentTools.includes('submit_review') || replyTarget.kind !== 'github' || replyTarget.issue) return {};
    return {
      reviewKey: threadId,
      ...(this.reviews.earlier ? { earlierReview: this.reviews.earlier } : {}),
      ...(message?.review ? { automaticReview: true } : {}),
    };
  }

  /** A review run's end: the commit it reviewed is remembered (unless refused), with its findings for the next review. */
  record(record: RunRecord | undefined): void {
    const reviewed = record?.reviewed;
    if (!reviewed || reviewed.status === 'refused') return;
    this.reviews.reviewed = [...this.reviews.reviewed.filter((sha) => sha !== reviewed.commitSha), reviewed.commitSha].slice(
      -REVIEWED_KEPT,
    );
    const submitted = record.submissions.submit_review as { findings?: Finding[] } | undefined;
    this.reviews.earlier = earlierReview(reviewed.commitSha, submitted?.findings ?? []);
  }
}
