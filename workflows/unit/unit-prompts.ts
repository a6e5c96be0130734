import type { Finding } from '../../tools';
import type { EarlierReview, UncertainWrite, UnitOutcome, UnitRecord, WorkItem } from '../contracts';
import { findingPlace } from './review-render';
import { describeWrite } from '../effects/uncertain-writes';

function describeFinding(finding: Finding): string {
  return `- [${finding.severity}] ${finding.path}:${finding.line} — ${finding.title}\n  Scenario: ${finding.scenario}\n  Impact: ${finding.impact}`;
}

function describeWork(item: WorkItem): string {
  switch (item.kind) {
    case 'request':
      return `The change requested:\n${item.text}`;
    case 'steer':
      return `A new instruction${item.by ? ` from ${item.by}` : ''}:\n${item.text}`;
    case 'checks':
      return `CI failed on the current head. Make it pass:\n${item.detail}`;
    case 'findings':
      return `${item.source === 'review' ? 'The review' : 'A person reviewing the PR'} asks for these to be addressed (fix each, or explain precisely why it does not apply):\n${item.findings.map(describeFinding).join('\n')}${item.note ? `\n${item.note}` : ''}`;
  }
}

/** The coding run's request for one round: the repository, the branch, and the work. */
export function codingRequest(
  context: { repo: string; branch: string; base?: string; pullRequest?: number; round: number },
  work: WorkItem[],
): string {
  return [
    `Repository ${context.repo}, checked out in your workspace on branch ${context.branch}${context.base ? ` (based on ${context.base})` : ''}.`,
    context.pullRequest
      ? `This is round ${context.round} on pull request #${context.pullRequest}.`
      : 'No pull request exists yet; Switchboard opens it from your description.',
    '',
    ...work.map(describeWork),
    '',
    'Make the change, verify it, and commit it on the current branch. Switchboard pushes the branch and opens or updates the pull request.',
    'Call submit_description with the title and the description when the branch holds the final change.',
  ].join('\n');
}

/** The review run's request: the exact PR and commit, and the gate. */
export function reviewRequest(context: { repo: string; pullRequest: number; headSha: string; base: string; gate: string }): string {
  return [
    `Review pull request #${context.pullRequest} of ${context.repo}. Your workspace holds its head, commit ${context.headSha}.`,
    `See the change with \`git diff origin/${context.base}...HEAD\` (and github_pull_get for the description).`,
    `Report verified defects the PR introduces and broken rules that apply to the changed code; findings at or above \`${context.gate}\` go back to a coding round.`,
    'Call submit_review exactly once at the end.',
  ].join('\n');
}

/**
 * What a review after an earlier one is also asked: the earlier findings, numbered as posted,
 * what changed since that commit, and which of them this head resolves (`resolved`).
 */
export function earlierReviewRequest(earlier: EarlierReview): string {
  const sha = earlier.commitSha;
  return [
    `This head follows a review of commit ${sha.slice(0, 12)}, which found ${earlier.findings.length ? 'these' : 'nothing'}:`,
    ...earlier.findings.map((f, i) => `${i + 1}. [${f.severity}] ${findingPlace(f)} — ${f.title}`),
    `Review what changed since then first: \`git diff ${sha}..HEAD\` (if that commit is not in your checkout, review the whole change).`,
    'In submit_review, list in `resolved` the numbers of the findings above that this head fixes, and report again, as findings, those that still hold.',
  ].join('\n');
}

const OUTCOME_WORDS: Record<UnitOutcome, string> = {
  merged: 'merged',
  closed: 'closed without merging',
  stopped: 'stopped',
  out_of_rounds: 'out of rounds',
  budget: 'out of budget',
  spend: 'out of money',
  idle_expired: 'idle for too long',
  failed: 'failed',
};

/** The final report, for the thread and the PR. */
export function unitReport(record: Omit<UnitRecord, 'report'>, lastReview?: string, unconfirmed: UncertainWrite[] = []): string {
  const pr = record.pullRequest ? `PR #${record.pullRequest}` : 'No pull request';
  return [
    `Ship unit ${record.unitId} ${OUTCOME_WORDS[record.outcome]}${record.endedBy ? `: ${record.endedBy}` : ''}.`,
    `${pr} on ${record.repo}; ${record.rounds} coding round${record.rounds === 1 ? '' : 's'}, ${record.reviews} review${record.reviews === 1 ? '' : 's'}.`,
    ...(lastReview ? [`Last review: ${lastReview}.`] : []),
    ...(record.rerunRounds ?? []).map(
      (rerun) => `${rerun.review ? `The review of round ${rerun.round}` : `Coding round ${rerun.round}`} ran again: ${rerun.reason}.`,
    ),
    ...unconfirmed.filter((w) => !w.resent).map((w) => `Could not confirm delivery of ${describeWrite(w)} (effect ${w.effectKey}).`),
  ].join('\n');
}

/** A unit asked for on a plain issue links its PR to it, so merging the PR closes the issue (`Fixes #<n>`). */
export function fixesIssue(body: string, issue: number | undefined): string {
  if (issue === undefined || new RegExp(`\\b(fix(es|ed)?|close[sd]?|resolve[sd]?) #${issue}\\b`, 'i').test(body)) return body;
  return `${body}\n\nFixes #${issue}`;
}
