import type { UnitCarry, UnitOutcome } from '../contracts';
import { applyGate, validateSubmission } from './review-gate';
import { earlierReview, renderReview, reviewComments } from './review-render';
import { earlierReviewRequest, reviewRequest, workspaceNotice } from './unit-prompts';
import type { Unit } from './unit';
import { lostRun, rerunReview } from './lost-work';
import { rememberHost } from './unit-hosts';
import { GATE_READS_OWN_REVIEW, ownReviewApproves } from './unit-gate';
import { answeredFindingsRequest } from './unit-prompts';
import { declinedNumbers, keptOpen, recordExchange, shownAsEarlier } from './review-exchange';
import { atOrAbove } from './review-gate';

/** The `patched()` id of skipping the review of a commit the unit already reviewed (docs/versioning.md). */
export const ONE_REVIEW_PER_COMMIT = 'unit-reviews-each-commit-once';
/** Reviewed commits remembered in the carry (the oldest drop off). */
export const REVIEWED_SHAS_KEPT = 50;

/** The unit posted (or may have posted) a review of this commit. */
export function alreadyReviewed(c: Pick<UnitCarry, 'lastReview' | 'reviewedShas'>, sha: string): boolean {
  if (c.reviewedShas?.includes(sha)) return true;
  return c.lastReview?.commitSha === sha && c.lastReview.posted !== 'refused' && c.lastReview.posted !== 'not_posted';
}

/** A review run whose submission is invalid is asked again this many times. */
export const REVIEW_RETRIES = 1;

/**
 * A review of the PR head by a read-scoped review run. The submission is validated and gated;
 * the review is posted only to the commit reviewed, and only while it is still the head.
 * Findings at or above the gate become work; otherwise the unit waits for CI.
 */
export class ReviewRound {
  constructor(private readonly unit: Unit) {}

  async run(): Promise<UnitOutcome | undefined> {
    const { unit } = this;
    const { carry: c, settings, activities, unitId, repo } = unit;
    const { ship } = settings;
    if (c.runMinutes >= settings.budgetMinutes) return 'budget';
    // A unit that starts at review (an exact PR) reserves its first round here.
    const unfunded = await unit.spend?.fundFirstRound();
    if (unfunded) return unit.endWith('spend', unfunded);
    const pr = await activities.github.githubPullGet({ repo, number: c.pullRequest!, identity: 'read' });
    if (pr.merged) return 'merged';
    if (pr.state === 'closed') return 'closed';
    c.headSha = pr.headSha;
    c.base = pr.baseRef;
    // One review per commit: a head this unit already reviewed (a redelivered push) goes on from
    // that review instead of posting a second one, but only when that review of this very head
    // approved. A round that changed nothing after a review asking for changes is reviewed again:
    // green checks never make a head ready against the unit's own request for changes.
    // Issue 33: the unit's findings a coding round answered (or left unanswered) go to this review.
    const answering = unit.answersFindings();
    const shown = answering ? unit.findings.awaitingReview() : [];
    const reviewedBefore = alreadyReviewed(c, pr.headSha) && unit.ports.patched(ONE_REVIEW_PER_COMMIT);
    const again = reviewedBefore && ((!ownReviewApproves(c, pr.headSha) && unit.ports.patched(GATE_READS_OWN_REVIEW)) || shown.length > 0);
    if (reviewedBefore && !again) {
      c.checks = { state: 'waiting', headSha: pr.headSha, polls: 0 };
      unit.enter('checks');
      return undefined;
    }
    const reviewKey = `${unitId}/review`;
    const ws = await activities.workspace.prepareUnitWorkspace({
      workspaceKey: reviewKey,
      repo,
      branch: 'switchboard-review',
      base: pr.baseRef,
      checkoutSha: pr.headSha,
      identity: 'read',
      machine: settings.review.profile.machine,
    });
    const host = rememberHost(unit, reviewKey, ws);
    // The repository's gate where it sets one (its .switchboard.yml or the deployment's repositories section).
    const gate = unit.repository?.settings.review.severity ?? ship.addressSeverity;
    // A review after an earlier one looks at what changed since and says which findings the push resolved.
    const since = c.earlier?.commitSha ?? pr.headSha;
    const earlier =
      shown.length > 0 ? shownAsEarlier(since, shown) : c.earlier && c.earlier.commitSha !== pr.headSha ? c.earlier : undefined;
    const declined = declinedNumbers(shown);
    let problem: string | undefined;
    let validated: ReturnType<typeof validateSubmission> = { ok: false, problem: 'no review run' };
    for (let attempt = 0; attempt <= REVIEW_RETRIES && !validated.ok; attempt += 1) {
      const request =
        `${reviewRequest({ repo, pullRequest: c.pullRequest!, headSha: pr.headSha, base: pr.baseRef, gate })}` +
        (shown.length > 0
          ? `\n${answeredFindingsRequest(since, pr.headSha, shown)}`
          : earlier
            ? `\n${earlierReviewRequest(earlier)}`
            : '') +
        `\n(review ${c.reviews + 1} of this unit)` +
        workspaceNotice(ws) +
        (problem ? `\nYour previous submission was invalid: ${problem}. Submit a valid review.` : '');
      const record = await unit.runChild(
        'review',
        settings.review,
        request,
        reviewKey,
        host,
        pr.files.map((file) => file.path),
      );
      if (unit.inbox.stopped || unit.inbox.terminal) return undefined;
      validated = validateSubmission(record?.submissions.submit_review, earlier?.findings.length ?? 0, declined);
      if (validated.ok) break;
      // A run that ended without its result (failed, cut, lost) is run again; the retry is for invalid submissions.
      const lost = record?.submissions.submit_review === undefined ? lostRun(record, 'review') : undefined;
      if (lost && rerunReview(unit, lost)) attempt -= 1;
      else problem = validated.problem;
    }
    if (!validated.ok) return unit.failWith(`the review run did not submit a valid review: ${validated.problem}`);
    const { summary, addressed } = applyGate(validated.submission, gate, pr.headSha);
    // Declines the review keeps open count at the gate with its new findings.
    const kept = keptOpen(validated.submission, shown);
    if (kept > 0) Object.assign(summary, { verdict: 'request_changes', addressed: summary.addressed + kept });
    // Each new finding at the gate is tracked under an id its line comment carries, to find its thread.
    const ids = answering ? unit.findings.nextIds(addressed.length) : [];
    const tags = new Map<number, string>();
    validated.submission.findings.forEach((finding, index) => {
      if (answering && atOrAbove(finding.severity, gate)) tags.set(index, ids[tags.size]);
    });
    const current = await activities.github.githubPullGet({ repo, number: c.pullRequest!, identity: 'read' });
    if (current.headSha !== pr.headSha) {
      c.headSha = current.headSha;
      return undefined; // the head moved during the review: review again, post nothing for the old commit
    }
    const posted = await activities.githubWrites.postReview({
      repo,
      identity: 'write',
      number: c.pullRequest!,
      commitSha: pr.headSha,
      event: 'COMMENT',
      body: renderReview(validated.submission, summary, gate, {
        ...(earlier ? { earlier } : {}),
        declined: declined.map((number) => ({ number, id: shown[number - 1].id, title: shown[number - 1].title })),
      }),
      comments: reviewComments(validated.submission, tags),
      // A second review of the same head has a key of its own (the first one's marker is on GitHub already).
      effectKey: again ? `${unitId}/review/${pr.headSha}/${c.reviews + 1}` : `${unitId}/review/${pr.headSha}`,
    });
    if (posted.status === 'refused' && posted.code === 'head_moved') return undefined;
    c.reviews += 1;
    if (posted.id) c.postedReviews.push(posted.id);
    if (posted.status !== 'refused') {
      c.reviewedShas = [...(c.reviewedShas ?? []), pr.headSha].slice(-REVIEWED_SHAS_KEPT);
      c.earlier = earlierReview(pr.headSha, validated.submission.findings);
    }
    c.lastReview = { ...summary, posted: posted.status };
    if (answering) {
      const open = await recordExchange(unit, { id: posted.id, commitSha: pr.headSha }, validated.submission, shown, addressed);
      if (open > 0) unit.enter('findings');
      else {
        c.checks = { state: 'waiting', headSha: pr.headSha, polls: 0 };
        unit.enter('checks');
      }
    } else if (addressed.length > 0) {
      c.work.push({ kind: 'findings', source: 'review', findings: addressed });
      unit.enter('findings');
    } else {
      c.checks = { state: 'waiting', headSha: pr.headSha, polls: 0 };
      unit.enter('checks');
    }
    return undefined;
  }
}
