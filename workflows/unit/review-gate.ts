import { FINDING_SEVERITIES, getTool, parseToolInput, type Finding, type FindingSeverity } from '../../tools';
import type { ReviewSummary } from '../contracts';

export interface Submission {
  verdict: 'approve' | 'request_changes' | 'comment';
  summary: string;
  findings: Finding[];
}

export type ValidatedSubmission = { ok: true; submission: Submission } | { ok: false; problem: string };

/** Checks a review run's `submit_review` against the tool's schema; a missing one is a problem too. */
export function validateSubmission(raw: unknown): ValidatedSubmission {
  if (raw === undefined) return { ok: false, problem: 'the review run ended without calling submit_review' };
  const parsed = parseToolInput(getTool('submit_review')!, raw);
  if (!parsed.ok) return { ok: false, problem: parsed.message };
  return { ok: true, submission: parsed.value as Submission };
}

/** True when `severity` is at or above the gate (blocking > major > minor > nit). */
export function atOrAbove(severity: FindingSeverity, gate: FindingSeverity): boolean {
  return FINDING_SEVERITIES.indexOf(severity) <= FINDING_SEVERITIES.indexOf(gate);
}

/**
 * Applies the gate: findings at or above it must be addressed. The verdict is code's, not the
 * model's: any addressed finding requests changes; none approves (the model's own
 * `request_changes` without a finding at the gate is recorded as a comment).
 */
export function applyGate(
  submission: Submission,
  gate: FindingSeverity,
  commitSha: string,
): { summary: ReviewSummary; addressed: Finding[] } {
  const counts = Object.fromEntries(FINDING_SEVERITIES.map((severity) => [severity, 0])) as Record<FindingSeverity, number>;
  for (const finding of submission.findings) counts[finding.severity] += 1;
  const addressed = submission.findings.filter((finding) => atOrAbove(finding.severity, gate));
  const verdict = addressed.length > 0 ? 'request_changes' : 'approve';
  return { summary: { verdict, commitSha, counts, addressed: addressed.length, posted: 'not_posted' }, addressed };
}

/**
 * The review as posted. It is a COMMENT review whose first line carries the verdict, because
 * GitHub refuses an approval or a change request from the author of the PR (the unit opened it).
 */
export function renderReview(submission: Submission, summary: ReviewSummary, gate: FindingSeverity): string {
  const verdict =
    summary.verdict === 'approve'
      ? '**Verdict: approve**'
      : `**Verdict: changes requested** (${summary.addressed} at or above \`${gate}\`)`;
  const lines = [verdict, '', submission.summary];
  if (submission.findings.length > 0) {
    lines.push('', '| severity | where | finding |', '| --- | --- | --- |');
    for (const finding of submission.findings) {
      const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
      lines.push(
        `| ${finding.severity} | \`${cell(finding.path)}:${finding.line}\` | **${cell(finding.title)}** — ${cell(finding.scenario)} Impact: ${cell(finding.impact)} |`,
      );
    }
  }
  lines.push('', `Reviewed commit ${summary.commitSha.slice(0, 12)}. Findings at or above \`${gate}\` go back to a coding round.`);
  return lines.join('\n');
}
