import type { Finding } from '../contracts/findings';
import type { EarlierReview, Handoff, TrackedFinding, UncertainWrite, UnitOutcome, UnitRecord, WorkItem } from '../contracts';
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

/** One open finding as the coding run reads it: its id, where, what, and what was said on its thread since. */
function describeTracked(finding: TrackedFinding): string {
  const where = finding.path ? ` ${finding.path}${finding.line ? `:${finding.line}` : ''}` : '';
  const what =
    finding.source === 'review'
      ? `- ${finding.id} [${finding.severity}]${where} — ${finding.title}\n  ${(finding.detail ?? '').replace(/\n/g, '\n  ')}`
      : `- ${finding.id} ${finding.author ?? 'A person'}'s comment${where ? ` on${where}` : ''}:\n  ${(finding.detail ?? finding.title).replace(/\n/g, '\n  ')}`;
  const earlier = finding.disposition ? [`  Your earlier answer (${finding.disposition.disposition}): ${finding.disposition.text}`] : [];
  const since = (finding.answers ?? []).map((answer) => `  Since then: ${answer}`);
  return [what, ...earlier, ...since].join('\n');
}

/** The coding run's request for one round: the repository, the branch, the work, and the findings it answers by id. */
export function codingRequest(
  context: { repo: string; branch: string; base?: string; pullRequest?: number; round: number },
  work: WorkItem[],
  findings: readonly TrackedFinding[] = [],
): string {
  const review = findings.filter((finding) => finding.source === 'review');
  const people = findings.filter((finding) => finding.source === 'human');
  const answer =
    findings.length > 0
      ? [
          ...(review.length ? ['', 'The review asks for these to be addressed, each by its id:', ...review.map(describeTracked)] : []),
          ...(people.length ? ['', 'People reviewing the PR ask for these, each by its id:', ...people.map(describeTracked)] : []),
          '',
          `Answer every one of them (${findings.map((finding) => finding.id).join(', ')}) exactly once with submit_dispositions before you finish: ` +
            'fixed (commit the fix; name the commit when you made it), declined with the reason (not_a_defect, out_of_scope, ' +
            'conflicts_with_instruction) and your reasoning, or question (what you need a person to decide or explain). ' +
            "Each answer is posted as a reply in the finding's thread. If you cannot finish, call submit_handoff instead.",
        ]
      : [];
  return [
    `Repository ${context.repo}, checked out in your workspace on branch ${context.branch}${context.base ? ` (based on ${context.base})` : ''}.`,
    context.pullRequest
      ? `This is round ${context.round} on pull request #${context.pullRequest}.`
      : 'No pull request exists yet; Switchboard opens it from your description.',
    '',
    ...work.map(describeWork),
    ...answer,
    '',
    'Make the change, verify it, and commit it on the current branch. Switchboard pushes the branch and opens or updates the pull request.',
    'Call submit_description with the title and the description when the branch holds the final change.',
  ].join('\n');
}

/**
 * What a review after a coding round is also asked about the unit's earlier findings: each with
 * the coding round's answer, numbered; which of them this head resolves (`resolved`), and a
 * judgement of each declined one (`declines`).
 */
export function answeredFindingsRequest(sinceSha: string, headSha: string, shown: readonly TrackedFinding[]): string {
  const answerOf = (finding: TrackedFinding) => {
    const answer = finding.disposition;
    if (finding.state === 'open' || !answer) return 'not answered by the coding round';
    if (answer.disposition === 'declined') return `declined (${answer.reason?.replace(/_/g, ' ') ?? 'no reason'}): ${answer.text}`;
    return `fixed${answer.commit ? ` in ${answer.commit}` : ''}: ${answer.text}`;
  };
  const declined = shown.map((finding, i) => (finding.state === 'declined' ? i + 1 : 0)).filter(Boolean);
  return [
    `Earlier findings of this unit's review and how the coding round answered them:`,
    ...shown.map((f, i) => `${i + 1}. ${f.id} [${f.severity}] ${f.path}:${f.line} — ${f.title}\n   Answer: ${answerOf(f)}`),
    sinceSha === headSha
      ? 'The coding round changed nothing since that review: judge its answers against the same code.'
      : `Review what changed since then first: \`git diff ${sinceSha}..HEAD\` (if that commit is not in your checkout, review the whole change).`,
    'In submit_review, list in `resolved` the numbers above that this head fixes, and report again, as findings, those that still hold and were not declined.',
    ...(declined.length
      ? [
          `For each declined finding (${declined.join(', ')}), add one entry to \`declines\`: accept true when its reason holds, false to keep it open, ` +
            'with your answer. Do not report a declined finding again as a new finding.',
        ]
      : []),
  ].join('\n');
}

/** A handoff as people read it on the pull request and in the conversation. */
export function handoffText(unitId: string, handoff: Handoff, pullRequest: number | undefined, headline = true): string {
  const reason = {
    budget: 'the budget is nearly spent',
    blocker: 'a blocker it cannot clear',
    decision: 'a decision only a person can make',
  }[handoff.reason];
  return [
    ...(headline ? [`Ship unit ${unitId} hands off${pullRequest ? ` PR #${pullRequest}` : ''}: ${reason}. ${handoff.why}`, ''] : []),
    `**Done:** ${handoff.done}`,
    `**Left:** ${handoff.left}`,
    `**Needs:** ${handoff.needs}`,
    ...(handoff.question
      ? [
          '',
          `**Question:** ${handoff.question}`,
          '',
          'The unit waits for an answer: reply in this conversation (on GitHub, mention the bot) and it goes on from here.',
        ]
      : ['', 'The pull request is not ready. The branch holds the work so far; asking for the change again goes on from it.']),
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
  handed_off: 'handed off',
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

/** What a run is told when its checkout could not borrow from its host's repository cache (empty otherwise). */
export function workspaceNotice(ws: { cacheNotice?: string }): string {
  return ws.cacheNotice ? `\n\n(workspace) ${ws.cacheNotice}` : '';
}
