import { FINDING_SEVERITIES, type Finding, type FindingSeverity } from '../contracts/findings';
import { getTool, parseToolInput } from '../../tools';
import type { ReviewSummary } from '../contracts';

export interface Submission {
  verdict: 'approve' | 'request_changes' | 'comment';
  summary: string;
  findings: Finding[];
  /** The numbers of the earlier review's findings this head resolves (a review after an earlier one). */
  resolved?: number[];
  /** The reviewer's judgement of each earlier finding the coding round declined. */
  declines?: Array<{ finding: number; accept: boolean; answer: string }>;
}

export type ValidatedSubmission = { ok: true; submission: Submission } | { ok: false; problem: string };

/**
 * Checks a review run's `submit_review` against the tool's schema; a missing one is a problem
 * too. `earlier`: how many findings the earlier review had, which `resolved` numbers must name.
 */
export function validateSubmission(raw: unknown, earlier = 0, declined: readonly number[] = []): ValidatedSubmission {
  if (raw === undefined) return { ok: false, problem: 'the review run ended without calling submit_review' };
  const parsed = parseToolInput(getTool('submit_review')!, raw);
  if (!parsed.ok) return { ok: false, problem: parsed.message };
  const submission = parsed.value as Submission;
  const stray = (submission.resolved ?? []).find((number) => number > earlier);
  if (stray !== undefined)
    return {
      ok: false,
      problem: earlier
        ? `resolved names finding ${stray}, and the earlier review had ${earlier}`
        : 'resolved names earlier findings, and there was no earlier review',
    };
  // Each declined finding gets exactly one judgement, and nothing else does.
  const judged = (submission.declines ?? []).map((decline) => decline.finding);
  const stranger = judged.find((number) => !declined.includes(number));
  if (stranger !== undefined)
    return {
      ok: false,
      problem: declined.length
        ? `declines names finding ${stranger}, which was not declined (declined: ${declined.join(', ')})`
        : 'declines names earlier findings, and the coding round declined none',
    };
  const twice = judged.find((number, index) => judged.indexOf(number) !== index);
  if (twice !== undefined) return { ok: false, problem: `declines names finding ${twice} twice` };
  const unjudged = declined.filter((number) => !judged.includes(number));
  if (unjudged.length > 0)
    return {
      ok: false,
      problem: `declines has no judgement of declined finding${unjudged.length === 1 ? '' : 's'} ${unjudged.join(', ')}`,
    };
  return { ok: true, submission };
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
