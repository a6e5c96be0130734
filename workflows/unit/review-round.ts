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

/** A round that ended early, with what the unit does next (an outcome ends it; undefined goes on). */
class End {
  constructor(readonly outcome: UnitOutcome | undefined) {}
}

type PullHead = Awaited<ReturnType<Unit['activities']['github']['githubPullGet']>>;
type ShownFindings = ReturnType<Unit['findings']['awaitingReview']>;
type Submission = Extract<ReturnType<typeof validateSubmission>, { ok: true }>['submission'];

/** A valid review, with the gate and the earlier review it was asked against. */
interface Reviewed {
  gate: Parameters<typeof applyGate>[1];
  earlier: ReturnType<typeof shownAsEarlier> | UnitCarry['earlier'];
  declined: number[];
  submission: Submission;
}

/** What posting a review needs: the head reviewed, the findings it was shown, and the review. */
interface Posting extends Reviewed {
  pr: PullHead;
  shown: ShownFindings;
  answering: boolean;
  again: boolean;
}

/**
 * A review of the PR head by a read-scoped review run. The submission is validated and gated;
 * the review is posted only to the commit reviewed, and only while it is still the head.
 * Findings at or above the gate become work; otherwise the unit waits for CI.
 */
export class ReviewRound {
  constructor(private readonly unit: Unit) {}

  async run(): Promise<UnitOutcome | undefined> {
    const { unit } = this;
    const { carry: c, settings, activities, repo } = unit;
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
    const reviewed = await this.review(pr, shown);
    if (reviewed instanceof End) return reviewed.outcome;
    return this.post({ pr, shown, answering, again, ...reviewed });
  }

  /**
   * A review run on a read checkout of the head, asked again once if its submission is invalid
   * (and again for a run lost with its work).
   */
  private async review(pr: PullHead, shown: ShownFindings): Promise<Reviewed | End> {
    const { unit } = this;
    const { carry: c, settings, activities, unitId, repo } = unit;
    const { ship } = settings;
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
      if (unit.inbox.stopped || unit.inbox.terminal) return new End(undefined);
      validated = validateSubmission(record?.submissions.submit_review, earlier?.findings.length ?? 0, declined);
      if (validated.ok) break;
      // A run that ended without its result (failed, cut, lost) is run again; the retry is for invalid submissions.
      const lost = record?.submissions.submit_review === undefined ? lostRun(record, 'review') : undefined;
      if (lost && rerunReview(unit, lost)) attempt -= 1;
      else problem = validated.problem;
    }
    if (!validated.ok) return new End(unit.failWith(`the review run did not submit a valid review: ${validated.problem}`));
    return { gate, earlier, declined, submission: validated.submission };
  }

  /** The gated review posted to the commit reviewed while it is still the head, and the phase that follows. */
  private async post({ pr, shown, answering, again, gate, earlier, declined, submission }: Posting): Promise<UnitOutcome | undefined> {
    const { unit } = this;
    const { carry: c, activities, unitId, repo } = unit;
    const { summary, addressed } = applyGate(submission, gate, pr.headSha);
    // Declines the review keeps open count at the gate with its new findings.
    const kept = keptOpen(submission, shown);
    if (kept > 0) Object.assign(summary, { verdict: 'request_changes', addressed: summary.addressed + kept });
    // Each new finding at the gate is tracked under an id its line comment carries, to find its thread.
    const ids = answering ? unit.findings.nextIds(addressed.length) : [];
    const tags = new Map<number, string>();
    submission.findings.forEach((finding, index) => {
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
      body: renderReview(submission, summary, gate, {
        ...(earlier ? { earlier } : {}),
        declined: declined.map((number) => ({ number, id: shown[number - 1].id, title: shown[number - 1].title })),
      }),
      comments: reviewComments(submission, tags),
      // A second review of the same head has a key of its own (the first one's marker is on GitHub already).
      effectKey: again ? `${unitId}/review/${pr.headSha}/${c.reviews + 1}` : `${unitId}/review/${pr.headSha}`,
    });
    if (posted.status === 'refused' && posted.code === 'head_moved') return undefined;
    c.reviews += 1;
    if (posted.id) c.postedReviews.push(posted.id);
    if (posted.status !== 'refused') {
      c.reviewedShas = [...(c.reviewedShas ?? []), pr.headSha].slice(-REVIEWED_SHAS_KEPT);
      c.earlier = earlierReview(pr.headSha, submission.findings);
    }
    c.lastReview = { ...summary, posted: posted.status };
    if (answering) {
      const open = await recordExchange(unit, { id: posted.id, commitSha: pr.headSha }, submission, shown, addressed);
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
