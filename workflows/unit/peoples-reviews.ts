import type { PullActivity } from '../contracts/github';
import type { Unit } from './unit';

/** A review a person submitted on the PR (from the `prEvent` signal). */
export interface PersonsReview {
  reviewId?: number;
  actor?: string;
  state?: string;
}

/**
 * The `patched()` id of a unit that tells its own reviews from a person's by their effect
 * marker, not only by the ids it remembers: a reset unit (or one whose review webhook arrived
 * before the review's result) took its own review for a person's and started an unasked round.
 */
export const UNIT_KNOWS_OWN_REVIEWS = 'unit-knows-own-reviews-by-marker';

/** A person's review becomes work for a findings round, with their words and line comments. */
export class PeoplesReviews {
  constructor(private readonly unit: Unit) {}

  async take(reviews: PersonsReview[]): Promise<void> {
    const { unit } = this;
    const activity = await unit.activities.github.githubPullActivity({
      repo: unit.repo,
      number: unit.carry.pullRequest!,
      identity: 'read',
    });
    if (unit.answersFindings()) return this.track(activity, reviews);
    let comments = activity.reviewComments;
    if (unit.ports.patched(UNIT_KNOWS_OWN_REVIEWS)) {
      // The unit's own reviews carry its effect marker (`<unit id>/review/…`), whichever order their events came in.
      const own = new Set(activity.reviews.filter((review) => carriesOwnMarker(review.body, unit.unitId)).map((review) => review.id));
      for (const id of own) if (!unit.carry.postedReviews.includes(id)) unit.carry.postedReviews.push(id);
      reviews = reviews.filter((review) => review.reviewId === undefined || !own.has(review.reviewId));
      if (reviews.length === 0) return;
      // Line comments of its own reviews are not a person's either.
      comments = comments.filter((comment) => comment.reviewId === undefined || !own.has(comment.reviewId));
    }
    const ids = new Set(reviews.map((review) => review.reviewId).filter((id) => id !== undefined));
    const bodies = activity.reviews
      .filter((review) => ids.has(review.id) && review.body.trim())
      .map((review) => `${review.author ?? 'someone'} (${review.state.toLowerCase()}): ${review.body}`);
    const lines = comments.map(
      (comment) => `${comment.author ?? 'someone'} on ${comment.path}${comment.line ? `:${comment.line}` : ''}: ${comment.body}`,
    );
    const note =
      [...bodies, ...lines].join('\n') ||
      `${reviews.map((review) => review.actor ?? 'someone').join(', ')} reviewed the PR without comments.`;
    unit.carry.work.push({ kind: 'findings', source: 'human', findings: [], note });
    unit.enter('findings');
  }

  /**
   * Issue 33: each person's comment becomes a finding the next coding round answers on its own thread:
   * a line comment, a review's text, a reply on a thread the unit does not track; a reply on a
   * finding's thread (an answer to its question, an objection to a decline) opens that finding again
   * with their words. The unit's own reviews and replies, and other Switchboard conversations'
   * reviews (an automatic review), are no person's.
   */
  private async track(activity: PullActivity, reviews: PersonsReview[]): Promise<void> {
    const { unit } = this;
    const { carry: c } = unit;
    const ledger = unit.findings;
    const commentsOf = (id: number) => activity.reviewComments.filter((comment) => comment.reviewId === id);
    const ours = (body: string | null | undefined) => carriesOwnMarker(body, unit.unitId);
    const taken = new Set<number>();
    for (const review of activity.reviews) {
      const comments = commentsOf(review.id);
      const own = ours(review.body) || (!review.body.trim() && comments.length > 0 && comments.every((comment) => ours(comment.body)));
      // Another conversation's review (the automatic review of this PR) is Switchboard's, not a person's.
      const switchboards = !own && review.body.includes('<!-- switchboard-effect: ');
      if ((own || switchboards) && !c.postedReviews.includes(review.id)) c.postedReviews.push(review.id);
    }
    let opened = 0;
    for (const event of reviews) {
      const review = activity.reviews.find((r) => r.id === event.reviewId);
      if (!review || c.postedReviews.includes(review.id) || taken.has(review.id)) continue;
      taken.add(review.id);
      const author = review.author ?? event.actor;
      if (review.body.trim()) {
        ledger.addHuman({ ...(author ? { author } : {}), body: review.body });
        opened += 1;
      }
      for (const comment of commentsOf(review.id)) {
        if (ledger.byComment(comment.id)) continue;
        const words = `${comment.author ?? author ?? 'someone'} replied: ${comment.body}`;
        const tracked = comment.inReplyTo !== undefined ? ledger.byComment(comment.inReplyTo) : undefined;
        if (tracked) ledger.reopen(tracked, words);
        else
          ledger.addHuman({
            ...(comment.author ? { author: comment.author } : author ? { author } : {}),
            body: comment.body,
            path: comment.path,
            ...(comment.line ? { line: comment.line } : {}),
            commentId: comment.inReplyTo ?? comment.id,
          });
        opened += 1;
      }
      if (!review.body.trim() && commentsOf(review.id).length === 0 && review.state === 'CHANGES_REQUESTED') {
        ledger.addHuman({ ...(author ? { author } : {}), body: `${author ?? 'A reviewer'} requested changes without a comment.` });
        opened += 1;
      }
      // Taken once: a redelivered event of the same review is not new work.
      c.postedReviews.push(review.id);
    }
    if (opened > 0) unit.enter('findings');
  }
}

/** The hidden marker of one of this unit's own writes (activities/github/effects.ts writes it). */
function carriesOwnMarker(body: string | null | undefined, unitId: string): boolean {
  return Boolean(body?.includes(`<!-- switchboard-effect: ${unitId.replace(/--/g, '-\u2010')}/`));
}
