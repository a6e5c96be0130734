import type { ReviewLineComment } from '../contracts/github';
import type { Finding, FindingSeverity } from '../contracts/findings';
import type { EarlierReview, ReviewSummary } from '../contracts';
import type { Submission } from './review-gate';

/** Findings an earlier review hands on to the next one (the most severe first, as submitted). */
export const EARLIER_FINDINGS_KEPT = 20;

/** An earlier review as the next one sees it: its commit and its findings, numbered as posted, bounded in size. */
export function earlierReview(commitSha: string, findings: readonly Finding[]): EarlierReview {
  const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
  return {
    commitSha,
    findings: findings.slice(0, EARLIER_FINDINGS_KEPT).map(({ suggestion: _dropped, ...finding }) => ({
      ...finding,
      title: cut(finding.title, 200),
      scenario: cut(finding.scenario, 400),
      impact: cut(finding.impact, 300),
    })),
  };
}

/** Where a finding is, as people read it: `src/a.ts:3`, `src/a.ts:3-5`, `src/a.ts:7 (removed)`. */
export function findingPlace(finding: Finding): string {
  const lines =
    finding.startLine !== undefined && finding.startLine < finding.line ? `${finding.startLine}-${finding.line}` : `${finding.line}`;
  return `${finding.path}:${lines}${finding.side === 'LEFT' ? ' (removed)' : ''}`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/**
 * The review's body. It is a COMMENT review whose first line carries the verdict, because
 * GitHub refuses an approval or a change request from the author of the PR (a unit opened it).
 * Then the summary, the earlier findings this head resolves, and every finding numbered (the
 * next review names the ones a push resolved by these numbers); each finding's detail is a
 * comment on its lines, or follows in the body when its lines are outside the diff.
 */
export function renderReview(
  submission: Submission,
  summary: ReviewSummary,
  gate: FindingSeverity,
  options: {
    earlier?: EarlierReview;
    next?: 'coding round' | 'author';
    /** The declined findings the review judged, by their number in `earlier`, with the finding ids. */
    declined?: Array<{ number: number; id: string; title: string }>;
  } = {},
): string {
  const verdict =
    summary.verdict === 'approve'
      ? '**Verdict: approve**'
      : `**Verdict: changes requested** (${summary.addressed} at or above \`${gate}\`)`;
  const lines = [verdict, '', submission.summary];
  const { earlier } = options;
  const resolved = (submission.resolved ?? []).filter((n) => earlier && n <= earlier.findings.length);
  if (earlier && resolved.length > 0) {
    lines.push('', `**Resolved since the review of ${earlier.commitSha.slice(0, 12)}:**`);
    for (const n of resolved) lines.push(`- ${n}. ~~${earlier.findings[n - 1].title}~~ (\`${findingPlace(earlier.findings[n - 1])}\`)`);
  } else if (earlier) lines.push('', `Nothing the review of ${earlier.commitSha.slice(0, 12)} found is resolved by this head.`);
  const judged = (options.declined ?? []).flatMap((declined) => {
    const decline = submission.declines?.find((d) => d.finding === declined.number);
    return decline ? [{ ...declined, ...decline }] : [];
  });
  if (judged.length > 0) {
    lines.push('', '**Declined by the coding round:**');
    for (const d of judged) lines.push(`- ${d.id} ${cell(d.title)}: ${d.accept ? 'accepted' : 'kept open'} — ${cell(d.answer)}`);
  }
  if (submission.findings.length > 0) {
    lines.push('', '| # | severity | where | finding |', '| --- | --- | --- | --- |');
    submission.findings.forEach((finding, index) =>
      lines.push(`| ${index + 1} | ${finding.severity} | \`${cell(findingPlace(finding))}\` | ${cell(finding.title)} |`),
    );
  }
  const next =
    options.next === 'author'
      ? `Findings at or above \`${gate}\` should be addressed before merging.`
      : `Findings at or above \`${gate}\` go back to a coding round.`;
  lines.push('', `Reviewed commit ${summary.commitSha.slice(0, 12)}. ${next}`);
  return lines.join('\n');
}

/**
 * Each finding as a comment on its lines: severity and title, the scenario and impact, and a
 * ```suggestion block when it has a drop-in fix (on the head's lines only: GitHub applies a
 * suggestion to the new file). `fallback` is what the body says instead when GitHub cannot put
 * it on those lines (outside the diff).
 */
export function reviewComments(submission: Submission, tags: ReadonlyMap<number, string> = new Map()): ReviewLineComment[] {
  return submission.findings.map((finding, index) => {
    const side = finding.side ?? 'RIGHT';
    const head = `**${finding.severity}** · ${finding.title}`;
    const detail = `${finding.scenario}\n\nImpact: ${finding.impact}`;
    const fix = finding.suggestion !== undefined && side === 'RIGHT' ? fence(finding.suggestion, 'suggestion') : undefined;
    const multi = finding.startLine !== undefined && finding.startLine < finding.line;
    return {
      path: finding.path,
      line: finding.line,
      side,
      ...(multi ? { startLine: finding.startLine } : {}),
      body: [head, detail, ...(fix ? [fix] : []), ...(tags.has(index) ? [findingTag(tags.get(index)!)] : [])].join('\n\n'),
      fallback: [
        `${index + 1}. **${finding.severity}** \`${findingPlace(finding)}\` — **${cell(finding.title)}** — ${cell(finding.scenario)} Impact: ${cell(finding.impact)}`,
        ...(finding.suggestion !== undefined ? [indent(fence(finding.suggestion, ''))] : []),
      ].join('\n'),
    };
  });
}

/** A fenced block that its own text cannot close (as many backticks as needed). */
function fence(text: string, info: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${info}\n${text.replace(/\n$/, '')}\n${ticks}`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `   ${line}`)
    .join('\n');
}

/** The hidden tag that names a tracked finding in its line comment, so its thread is found again (after a reset too). */
export function findingTag(id: string): string {
  return `<!-- switchboard-finding: ${id} -->`;
}

/** The tracked finding id a comment body carries, if any. */
export function taggedFinding(body: string): string | undefined {
  return /<!-- switchboard-finding: (F\d+) -->/.exec(body)?.[1];
}
