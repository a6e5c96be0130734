import type { Unit } from './unit';

/** A review a person submitted on the PR (from the `prEvent` signal). */
export interface PersonsReview {
  reviewId?: number;
  actor?: string;
  state?: string;
}

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
    const ids = new Set(reviews.map((review) => review.reviewId).filter((id) => id !== undefined));
    const bodies = activity.reviews
      .filter((review) => ids.has(review.id) && review.body.trim())
      .map((review) => `${review.author ?? 'someone'} (${review.state.toLowerCase()}): ${review.body}`);
    const comments = activity.reviewComments.map(
      (comment) => `${comment.author ?? 'someone'} on ${comment.path}${comment.line ? `:${comment.line}` : ''}: ${comment.body}`,
    );
    const note =
      [...bodies, ...comments].join('\n') ||
      `${reviews.map((review) => review.actor ?? 'someone').join(', ')} reviewed the PR without comments.`;
    unit.carry.work.push({ kind: 'findings', source: 'human', findings: [], note });
    unit.enter('findings');
  }
}
