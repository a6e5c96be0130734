import { applyGate, atOrAbove, validateSubmission, type Submission } from './review-gate';
import { renderReview, reviewComments } from './review-render';

const finding = (severity: 'blocking' | 'major' | 'minor' | 'nit') => ({
  severity,
  path: 'src/a.ts',
  line: 3,
  title: `${severity} defect`,
  scenario: 'When x is empty.',
  impact: 'It crashes.',
});

describe('the review gate', () => {
  it.each([
    ['blocking', 'minor', true],
    ['major', 'minor', true],
    ['minor', 'minor', true],
    ['nit', 'minor', false],
    ['minor', 'major', false],
    ['major', 'major', true],
    ['nit', 'nit', true],
    ['blocking', 'blocking', true],
    ['major', 'blocking', false],
  ] as const)('%s at gate %s is addressed: %s', (severity, gate, expected) => {
    expect(atOrAbove(severity, gate)).toBe(expected);
  });

  it('requests changes for findings at or above the gate and counts every severity', () => {
    const submission: Submission = { verdict: 'approve', summary: 'ok', findings: [finding('minor'), finding('nit'), finding('nit')] };
    const { summary, addressed } = applyGate(submission, 'minor', 'abc123');
    expect(summary).toEqual({
      verdict: 'request_changes',
      commitSha: 'abc123',
      counts: { blocking: 0, major: 0, minor: 1, nit: 2 },
      addressed: 1,
      posted: 'not_posted',
    });
    expect(addressed.map((item) => item.severity)).toEqual(['minor']);
  });

  it('approves when nothing reaches the gate, whatever verdict the model chose', () => {
    const { summary } = applyGate({ verdict: 'request_changes', summary: 'meh', findings: [finding('minor')] }, 'major', 'abc');
    expect(summary.verdict).toBe('approve');
    expect(summary.addressed).toBe(0);
  });

  it('validates the submission against the tool schema and names the problem', () => {
    expect(validateSubmission(undefined)).toEqual({ ok: false, problem: 'the review run ended without calling submit_review' });
    const invalid = validateSubmission({ verdict: 'approve', summary: 'x', findings: [{ ...finding('minor'), severity: 'critical' }] });
    expect(invalid.ok).toBe(false);
    expect(!invalid.ok && invalid.problem).toMatch(/findings\.0\.severity/);
    expect(validateSubmission({ verdict: 'approve', summary: 'fine', findings: [] })).toMatchObject({ ok: true });
  });

  it('renders the verdict first and every finding with its place, scenario and impact', () => {
    const submission: Submission = { verdict: 'request_changes', summary: 'One defect.', findings: [finding('major')] };
    const { summary } = applyGate(submission, 'minor', 'abcdef1234567890');
    const body = renderReview(submission, summary, 'minor');
    expect(body.split('\n')[0]).toBe('**Verdict: changes requested** (1 at or above `minor`)');
    expect(body).toContain('| 1 | major | `src/a.ts:3` | major defect |');
    expect(body).toContain('Reviewed commit abcdef123456. Findings at or above `minor` go back to a coding round.');
  });

  it('puts each finding on its lines with a suggestion where it has a fix, and says what an earlier review found resolved', () => {
    const submission: Submission = {
      verdict: 'request_changes',
      summary: 'Two defects.',
      findings: [
        { ...finding('minor'), startLine: 2, suggestion: 'const a = 1;\nconst b = 2;' },
        { ...finding('nit'), side: 'LEFT', suggestion: 'ignored on the left' },
      ],
      resolved: [1],
    };
    const [first, second] = reviewComments(submission);
    expect(first).toMatchObject({ path: 'src/a.ts', line: 3, side: 'RIGHT', startLine: 2 });
    expect(first.body).toBe(
      '**minor** · minor defect\n\nWhen x is empty.\n\nImpact: It crashes.\n\n```suggestion\nconst a = 1;\nconst b = 2;\n```',
    );
    expect(first.fallback).toContain('1. **minor** `src/a.ts:2-3` — **minor defect**');
    expect(second).toMatchObject({ side: 'LEFT' });
    expect(second.body).not.toContain('suggestion');
    const earlier = { commitSha: 'feedface00112233', findings: [finding('major')] };
    const { summary } = applyGate(submission, 'minor', 'abcdef1234567890');
    const body = renderReview(submission, summary, 'minor', { earlier, next: 'author' });
    expect(body).toContain('**Resolved since the review of feedface0011:**\n- 1. ~~major defect~~ (`src/a.ts:3`)');
    expect(body).toContain('should be addressed before merging');
    expect(validateSubmission({ verdict: 'approve', summary: 's', findings: [], resolved: [2] }, 1)).toEqual({
      ok: false,
      problem: 'resolved names finding 2, and the earlier review had 1',
    });
  });
});
