import type { ReplyTarget, UnitCarry } from '../contracts';

/**
 * The `patched()` id of a unit whose gate reads only its own review of the head it reports on
 * (docs/versioning.md): a head it already reviewed goes on to checks only when that review
 * approved; otherwise (a round that changed nothing after a review asking for changes) the head
 * is reviewed again, under a key of its own. Histories recorded before went to checks whatever
 * the verdict was, and the idle round said "the review approves" without looking.
 */
export const GATE_READS_OWN_REVIEW = 'unit-gate-reads-own-review';

/** The `patched()` id of a unit that posts its final report once when its conversation is its PR's (docs/versioning.md). */
export const REPORT_ONCE_ON_ITS_PR = 'unit-reports-once-on-its-pr';

/** The unit's own last review is of `head` and approves it at the gate (posted, or at least not refused). */
export function ownReviewApproves(c: Pick<UnitCarry, 'lastReview'>, head: string | undefined): boolean {
  const review = c.lastReview;
  return Boolean(head && review && review.commitSha === head && review.verdict === 'approve' && review.posted !== 'refused');
}

/** Why the unit may not call its PR ready, in words; undefined when its own review of the head approves. */
export function notReadyBecause(c: Pick<UnitCarry, 'lastReview' | 'headSha'>): string | undefined {
  const review = c.lastReview;
  const head = c.headSha?.slice(0, 12) ?? 'its head';
  if (!review) return `no review of this unit has looked at ${head} yet`;
  if (review.commitSha !== c.headSha) return `its last review looked at ${review.commitSha.slice(0, 12)}, not the head ${head}`;
  if (review.posted === 'refused') return `its review of ${head} could not be posted`;
  if (review.verdict !== 'approve')
    return `its review of ${head} asks for changes (${review.addressed} finding${review.addressed === 1 ? '' : 's'} at or above the gate)`;
  return undefined;
}

/** The unit's conversation is its pull request's own (a unit asked for on the PR): one comment there says it all. */
export function conversationIsThePr(target: ReplyTarget, repo: string, pullRequest: number | undefined): boolean {
  return (
    target.kind === 'github' &&
    pullRequest !== undefined &&
    target.pullRequest === pullRequest &&
    target.repo.toLowerCase() === repo.toLowerCase()
  );
}
