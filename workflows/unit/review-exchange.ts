import type { Finding } from '../contracts/findings';
import type { EarlierReview, TrackedFinding } from '../contracts';
import { FindingReplies } from './finding-replies';
import type { Submission } from './review-gate';
import { taggedFinding } from './review-render';
import type { Unit } from './unit';

/** The unit's earlier findings a review is shown (numbered from 1), as the review body's "resolved" list reads them. */
export function shownAsEarlier(commitSha: string, shown: readonly TrackedFinding[]): EarlierReview {
  return {
    commitSha,
    findings: shown.map((f): Finding => ({
      severity: f.severity ?? 'minor',
      path: f.path ?? '',
      line: f.line ?? 1,
      title: f.title,
      scenario: '-',
      impact: '-',
    })),
  };
}

/** The numbers (from 1) of the shown findings the coding round declined: each needs the review's judgement. */
export function declinedNumbers(shown: readonly TrackedFinding[]): number[] {
  return shown.map((finding, i) => (finding.state === 'declined' ? i + 1 : 0)).filter((n) => n > 0);
}

/** Declined findings the review keeps open: they count at the gate with the new findings. */
export function keptOpen(submission: Submission, shown: readonly TrackedFinding[]): number {
  const declined = declinedNumbers(shown);
  return (submission.declines ?? []).filter((d) => !d.accept && declined.includes(d.finding)).length;
}

/**
 * After the unit's review is posted: what it did with the findings it was shown (fixes confirmed
 * and their threads resolved, declines accepted or kept, each answered on its thread), and its
 * new findings at or above the gate tracked with their threads (found by the tag each line comment
 * carries). Returns how many findings are open now: the gate counts them.
 */
export async function recordExchange(
  unit: Unit,
  review: { id?: number; commitSha: string },
  submission: Submission,
  shown: readonly TrackedFinding[],
  addressed: readonly Finding[],
): Promise<number> {
  const ledger = unit.findings;
  const exchange = ledger.reviewed(shown, submission);
  const raised = ledger.raise(addressed, review.commitSha);
  if (review.id && raised.length > 0) {
    const activity = await unit.activities.github
      .githubPullActivity({ repo: unit.repo, number: unit.carry.pullRequest!, identity: 'read' })
      .catch(() => undefined);
    for (const comment of activity?.reviewComments ?? []) {
      if (comment.reviewId !== review.id) continue;
      const finding = raised.find((f) => f.id === taggedFinding(comment.body));
      if (finding) finding.commentId = comment.id;
    }
  }
  await new FindingReplies(unit).exchange(exchange, review.commitSha, unit.carry.reviews);
  return ledger.open().length;
}
