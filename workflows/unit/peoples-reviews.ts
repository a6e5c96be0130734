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
}

/** The hidden marker of one of this unit's own writes (activities/github/effects.ts writes it). */
function carriesOwnMarker(body: string | null | undefined, unitId: string): boolean {
  return Boolean(body?.includes(`<!-- switchboard-effect: ${unitId.replace(/--/g, '-\u2010')}/`));
}
