import type { EffectResult } from '../contracts/github';
import type { DeclineReason, TrackedFinding } from '../contracts';
import type { ReviewExchange } from './findings-ledger';
import { trackedPlace } from './findings-ledger';
import type { Unit } from './unit';

const REASON_WORDS: Record<DeclineReason, string> = {
  not_a_defect: 'not a defect',
  out_of_scope: 'out of scope',
  conflicts_with_instruction: 'it conflicts with an instruction',
};

/** The reply to a coding round's answer, as it is posted in the finding's thread. */
export function dispositionReply(finding: TrackedFinding, pushed: string | undefined): string {
  const answer = finding.disposition!;
  const text = answer.text.trim();
  switch (answer.disposition) {
    case 'fixed': {
      if (!pushed)
        return `The coding run says this is fixed${answer.commit ? ` (in ${answer.commit})` : ''}, but its round pushed no change; ${
          finding.source === 'review' ? 'the next review checks it' : 'please check'
        }.\n\n${text}`;
      return `Fixed in ${(answer.commit ?? pushed).slice(0, 12)}.\n\n${text}`;
    }
    case 'declined':
      return `Declined (${REASON_WORDS[answer.reason ?? 'not_a_defect']}): ${text}${
        finding.source === 'review' ? '\n\nThe next review accepts this or keeps the finding open.' : '\n\nReply here if you disagree.'
      }`;
    case 'question':
      return `Question: ${text}\n\nReply in this thread to answer; the unit waits for the answer before it calls the pull request ready.`;
  }
}

/**
 * The unit's side of each finding's conversation on GitHub: a reply in the finding's review thread
 * (or, for a finding with no line thread, a comment on the pull request naming it), and the
 * thread resolved once a review confirms the fix or accepts a decline. Every write is keyed
 * (`<unit id>/reply/<finding>/<round>`, `…/resolve/<finding>`), so kills, redeliveries and resets
 * post each once; a failed or refused reply is a lost view, never a failed unit.
 */
export class FindingReplies {
  constructor(private readonly unit: Unit) {}

  /** A round's answers, each in its finding's thread. */
  async answers(answered: readonly TrackedFinding[], pushed: string | undefined): Promise<void> {
    for (const finding of answered)
      await this.reply(finding, dispositionReply(finding, pushed), `${this.unit.unitId}/reply/${finding.id}/${finding.disposition!.round}`);
  }

  /** A review's exchange: accepted declines answered and resolved, kept ones answered, confirmed fixes resolved. */
  async exchange(exchange: ReviewExchange, commitSha: string, review: number): Promise<void> {
    const { unitId } = this.unit;
    const sha = commitSha.slice(0, 12);
    for (const { finding, answer } of exchange.accepted) {
      await this.reply(finding, `The review of ${sha} accepts this decline: ${answer}`, `${unitId}/reply/${finding.id}/review-${review}`);
      await this.resolve(finding);
    }
    for (const { finding, answer } of exchange.kept)
      await this.reply(
        finding,
        `The review of ${sha} keeps this open: ${answer}\n\nThe next coding round answers it again.`,
        `${unitId}/reply/${finding.id}/review-${review}`,
      );
    for (const finding of exchange.resolved) await this.resolve(finding);
  }

  /** Posts one reply: in the thread when the finding has one, else on the pull request naming the finding. */
  async reply(finding: TrackedFinding, text: string, effectKey: string): Promise<void> {
    const { unit } = this;
    const { carry: c, repo } = unit;
    const writes = unit.activities.githubWrites;
    const named = () => {
      const place = trackedPlace(finding);
      const who = finding.source === 'human' ? `${finding.author ?? 'A reviewer'}'s comment` : `Finding ${finding.id}`;
      return `> ${who}${place ? ` on \`${place}\`` : ''}: ${finding.title}\n\n${text}`;
    };
    const result = await quietly(
      finding.commentId
        ? writes.replyToReviewComment({
            repo,
            identity: 'write',
            number: c.pullRequest!,
            inReplyTo: finding.commentId,
            body: text,
            effectKey,
          })
        : writes.postComment({ repo, identity: 'write', number: c.pullRequest!, body: named(), effectKey }),
    );
    // The thread is gone (its comment deleted): the answer goes on the pull request instead.
    if (finding.commentId && result?.status === 'refused' && result.code === 'not_found')
      await quietly(writes.postComment({ repo, identity: 'write', number: c.pullRequest!, body: named(), effectKey: `${effectKey}/pr` }));
    // Its single-comment review is the unit's own, not a person's.
    if (result?.reviewId && !c.postedReviews.includes(result.reviewId)) c.postedReviews.push(result.reviewId);
  }

  private async resolve(finding: TrackedFinding): Promise<void> {
    const { unit } = this;
    if (!finding.commentId) return;
    await quietly(
      unit.activities.githubWrites.resolveReviewThread({
        repo: unit.repo,
        identity: 'write',
        number: unit.carry.pullRequest!,
        commentId: finding.commentId,
        effectKey: `${unit.unitId}/resolve/${finding.id}`,
      }),
    );
  }
}

async function quietly(write: Promise<EffectResult>): Promise<EffectResult | undefined> {
  return write.catch(() => undefined);
}
