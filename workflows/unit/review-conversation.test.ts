import type { TrackedFinding } from '../contracts';
import { CodingRound } from './coding-round';
import { FindingsLedger } from './findings-ledger';
import { IdleRound } from './idle-round';
import { PeoplesReviews } from './peoples-reviews';
import { findingTag } from './review-render';
import { ReviewRound } from './review-round';
import { Settle } from './settle';
import { finding, UNIT, world } from './unit-test-world';

/**
 * Issue 33 over fakes: the unit tracks its review's findings with ids and their threads, a coding
 * round answers each once (fixed, declined, question) in its thread, the next review confirms the
 * fix (the thread is resolved) and judges the decline, a question waits for a person and their
 * reply reopens it, and a coding run that cannot finish hands off.
 */
const onPr = { phase: 'review' as const, round: 1, pullRequest: 7, headSha: 'head-1', work: [] };
const three = [
  { ...finding, title: 'No greeting', line: 1 },
  { ...finding, severity: 'minor', title: 'Shouting', line: 2 },
  { ...finding, severity: 'minor', title: 'Which language?', path: 'docs/x.md', line: 9 },
];
const review = (findings: unknown[], extra: Record<string, unknown> = {}) => ({
  submissions: { submit_review: { verdict: findings.length ? 'request_changes' : 'approve', summary: 'S.', findings, ...extra } },
});
const tracked = (id: string, state: TrackedFinding['state'], extra: Partial<TrackedFinding> = {}): TrackedFinding => ({
  id,
  source: 'review',
  severity: 'minor',
  path: 'README.md',
  line: 1,
  title: `Finding ${id}`,
  state,
  ...extra,
});

describe('the review conversation', () => {
  it("tracks its review's findings under ids whose line comments carry them, and finds each finding's thread", async () => {
    const w = world({
      carry: onPr,
      run: () => review(three),
      activity: {
        reviewComments: [
          { id: 501, path: 'README.md', line: 1, body: `a\n\n${findingTag('F1')}`, reviewId: 99 },
          { id: 502, path: 'README.md', line: 2, body: `b\n\n${findingTag('F2')}`, reviewId: 99 },
          { id: 600, path: 'README.md', line: 1, body: `someone else's\n\n${findingTag('F1')}`, reviewId: 12 },
        ],
      },
    });
    await new ReviewRound(w.unit).run();
    const [posted] = w.log.inputs<{ comments: Array<{ body: string }> }>('postReview');
    expect(posted.comments.map((c) => c.body.match(/switchboard-finding: (F\d+)/)?.[1])).toEqual(['F1', 'F2', 'F3']);
    expect(w.unit.carry.findings!.map((f) => [f.id, f.state, f.commentId])).toEqual([
      ['F1', 'open', 501],
      ['F2', 'open', 502],
      ['F3', 'open', undefined],
    ]);
    expect(w.unit.carry.work).toEqual([]);
    expect(w.phases).toEqual(['findings']);
    expect(w.unit.state().openFindings).toMatchObject({ count: 3, shown: [{ id: 'F1' }, { id: 'F2' }, { id: 'F3' }] });
  });

  it('gives a coding round the open findings, posts each answer in its thread once the fix is pushed', async () => {
    const findings = [tracked('F1', 'open', { commentId: 501 }), tracked('F2', 'open', { commentId: 502 }), tracked('F3', 'open')];
    const dispositions = [
      { finding: 'F1', disposition: 'fixed', text: 'Greets now.' },
      { finding: 'F2', disposition: 'declined', reason: 'out_of_scope', text: 'The heading is not part of this change.' },
      { finding: 'F3', disposition: 'question', text: 'English or French?' },
    ];
    const w = world({
      carry: { phase: 'findings', round: 1, pullRequest: 7, headSha: 'head-0', findings, nextFinding: 4 },
      run: () => ({ submissions: { submit_dispositions: { dispositions } } }),
    });
    await new CodingRound(w.unit).run();
    expect(w.runs[0].findings).toEqual(['F1', 'F2', 'F3']);
    expect(w.runs[0].request).toContain('Answer every one of them (F1, F2, F3) exactly once');
    expect(w.log.names()).toEqual([
      'prepareUnitWorkspace',
      'commitWorkspace',
      'pushBranch',
      'replyToReviewComment',
      'replyToReviewComment',
      'postComment',
    ]);
    const replies = w.log.inputs<{ inReplyTo: number; body: string; effectKey: string }>('replyToReviewComment');
    expect(replies[0]).toMatchObject({
      inReplyTo: 501,
      effectKey: `${UNIT}/reply/F1/2`,
      body: expect.stringMatching(/^Fixed in head-1\./),
    });
    expect(replies[1]).toMatchObject({ inReplyTo: 502, body: expect.stringMatching(/^Declined \(out of scope\): The heading/) });
    const [question] = w.log.inputs<{ body: string; effectKey: string }>('postComment');
    expect(question).toMatchObject({ effectKey: `${UNIT}/reply/F3/2` });
    expect(question.body).toMatch(/^> Finding F3 on `README.md:1`: Finding F3\n\nQuestion: English or French\?/);
    expect(w.unit.carry.findings!.map((f) => f.state)).toEqual(['fixed', 'declined', 'question']);
    // The replies' single-comment reviews are the unit's own, never a person's.
    expect(w.unit.carry.postedReviews).toEqual([500]);
    expect(w.phases).toEqual(['review']);
  });

  it('confirms the fix (the thread is resolved), accepts the decline on its thread, and goes to checks with the question waiting', async () => {
    const findings = [
      tracked('F1', 'fixed', { commentId: 501 }),
      tracked('F2', 'declined', {
        commentId: 502,
        disposition: { finding: 'F2', disposition: 'declined', reason: 'out_of_scope', text: 'No.', round: 2 },
      }),
      tracked('F3', 'question'),
    ];
    const w = world({
      carry: { ...onPr, round: 2, reviews: 1, findings, nextFinding: 4, earlier: { commitSha: 'head-0', findings: [] } },
      run: (request) => {
        expect(request).toContain('1. F1 [minor] README.md:1 — Finding F1');
        expect(request).toContain('2. F2 [minor] README.md:1 — Finding F2\n   Answer: declined (out of scope): No.');
        expect(request).not.toContain('F3');
        return review([], { resolved: [1], declines: [{ finding: 2, accept: true, answer: 'Fair: a separate change.' }] });
      },
    });
    await new ReviewRound(w.unit).run();
    expect(w.log.names()).toEqual([
      'githubPullGet',
      'prepareUnitWorkspace',
      'githubPullGet',
      'postReview',
      'replyToReviewComment',
      'resolveReviewThread',
      'resolveReviewThread',
    ]);
    expect(w.log.inputs('postReview')[0]).toMatchObject({
      body: expect.stringContaining('- F2 Finding F2: accepted — Fair: a separate change.'),
    });
    expect(w.log.inputs('replyToReviewComment')[0]).toMatchObject({
      inReplyTo: 502,
      effectKey: `${UNIT}/reply/F2/review-2`,
      body: 'The review of head-1 accepts this decline: Fair: a separate change.',
    });
    expect(w.log.inputs('resolveReviewThread')).toEqual([
      expect.objectContaining({ commentId: 502, effectKey: `${UNIT}/resolve/F2` }),
      expect.objectContaining({ commentId: 501, effectKey: `${UNIT}/resolve/F1` }),
    ]);
    expect(w.unit.carry.findings!.map((f) => f.state)).toEqual(['resolved', 'accepted', 'question']);
    expect(w.unit.carry.lastReview).toMatchObject({ verdict: 'approve' });
    expect(w.phases).toEqual(['checks']);
  });

  it('a decline the review keeps open counts at the gate, and a review that leaves a decline unjudged is asked again', async () => {
    const findings = [tracked('F1', 'declined', { commentId: 501 })];
    let asked = 0;
    const w = world({
      carry: { ...onPr, round: 2, reviews: 1, findings, nextFinding: 2, lastReview: undefined },
      run: () => {
        asked += 1;
        return asked === 1 ? review([]) : review([], { declines: [{ finding: 1, accept: false, answer: 'It is a defect.' }] });
      },
    });
    await new ReviewRound(w.unit).run();
    expect(w.runs[1].request).toContain('declines has no judgement of declined finding 1');
    expect(w.unit.carry.lastReview).toMatchObject({ verdict: 'request_changes', addressed: 1 });
    expect(w.log.inputs('replyToReviewComment')[0]).toMatchObject({
      body: expect.stringMatching(/^The review of head-1 keeps this open: It is a defect\./),
    });
    expect(w.unit.carry.findings![0]).toMatchObject({ state: 'open', answers: ['review: It is a defect.'] });
    expect(w.phases).toEqual(['findings']);
  });

  it('reviews a head again when a round only declined (the head did not move), under its own key', async () => {
    const lastReview = {
      verdict: 'request_changes' as const,
      commitSha: 'head-1',
      counts: { blocking: 0, major: 1, minor: 0, nit: 0 },
      addressed: 1,
      posted: 'confirmed' as const,
    };
    const w = world({
      carry: {
        ...onPr,
        reviews: 1,
        reviewedShas: ['head-1'],
        lastReview,
        findings: [tracked('F1', 'declined', { commentId: 501 })],
        earlier: { commitSha: 'head-1', findings: [] },
      },
      run: (request) => {
        expect(request).toContain('The coding round changed nothing since that review');
        return review([], { declines: [{ finding: 1, accept: true, answer: 'Agreed.' }] });
      },
    });
    await new ReviewRound(w.unit).run();
    expect(w.log.inputs('postReview')[0]).toMatchObject({ effectKey: `${UNIT}/review/head-1/2` });
    expect(w.phases).toEqual(['checks']);
  });

  it('waits in idle while a question is open, never saying ready, and tells the thread what it asks', async () => {
    const approved = {
      verdict: 'approve' as const,
      commitSha: 'head-1',
      counts: { blocking: 0, major: 0, minor: 0, nit: 0 },
      addressed: 0,
      posted: 'confirmed' as const,
    };
    const question = tracked('F3', 'question', {
      disposition: { finding: 'F3', disposition: 'question', text: 'English or French?', round: 2 },
    });
    const w = world({
      carry: {
        phase: 'idle',
        round: 2,
        pullRequest: 7,
        headSha: 'head-1',
        lastReview: approved,
        checks: { state: 'success', headSha: 'head-1', polls: 1 },
        findings: [question],
      },
    });
    await new IdleRound(w.unit).run();
    const [asks] = w.log.inputs<{ effectKey: string; text: string }>('deliverReply');
    expect(asks.effectKey).toBe(`${UNIT}/asks/F3.2`);
    expect(asks.text).toBe(
      "PR #7 on acme/app waits for an answer before it can be ready:\n- F3 on `README.md:1` (Finding F3): English or French?\nAnswer in the finding's thread on the pull request, or here.",
    );
    expect(w.log.inputs<{ text: string }>('deliverReply').some((reply) => /is ready/.test(reply.text))).toBe(false);
    expect(w.plan).toEqual([]);
    expect(w.unit.state().questions).toEqual([{ finding: 'F3', place: 'README.md:1', question: 'English or French?' }]);
  });

  it("takes a person's reply on a question's thread as its answer, a new line comment as a finding, and its own replies as nobody's", async () => {
    const question = tracked('F3', 'question', { commentId: 503 });
    const w = world({
      carry: { phase: 'idle', round: 2, pullRequest: 7, headSha: 'head-1', findings: [question], nextFinding: 4 },
      activity: {
        reviews: [
          { id: 70, author: 'switchboard[bot]', state: 'COMMENTED', body: '', commitId: 'head-1' },
          { id: 71, author: 'ana', state: 'COMMENTED', body: '', commitId: 'head-1' },
          { id: 72, author: 'bob', state: 'CHANGES_REQUESTED', body: 'Also rename it.', commitId: 'head-1' },
        ],
        reviewComments: [
          {
            id: 801,
            path: 'README.md',
            line: 1,
            body: `Fixed.\n\n<!-- switchboard-effect: ${UNIT}/reply/F1/2 -->`,
            reviewId: 70,
            inReplyTo: 501,
          },
          { id: 802, path: 'README.md', line: 1, body: 'English, please.', reviewId: 71, inReplyTo: 503 },
          { id: 803, path: 'src/a.js', line: 4, body: 'Typo here.', reviewId: 72 },
        ],
      },
    });
    await new PeoplesReviews(w.unit).take([{ reviewId: 70 }, { reviewId: 71, actor: 'ana' }, { reviewId: 72, actor: 'bob' }]);
    const ledger = new FindingsLedger(w.unit.carry);
    expect(ledger.byId('F3')).toMatchObject({ state: 'open', answers: ['ana replied: English, please.'] });
    expect(ledger.all.filter((f) => f.source === 'human').map((f) => [f.id, f.author, f.title, f.commentId])).toEqual([
      ['F4', 'bob', 'Also rename it.', undefined],
      ['F5', 'bob', 'Typo here.', 803],
    ]);
    expect(w.unit.carry.postedReviews).toEqual(expect.arrayContaining([70, 71, 72]));
    expect(w.phases).toEqual(['findings']);
    // The same review delivered again is not new work.
    await new PeoplesReviews(w.unit).take([{ reviewId: 72, actor: 'bob' }]);
    expect(ledger.all).toHaveLength(3);
  });

  it('hands off: the work is pushed, the unit settles handed_off and its report carries the handoff', async () => {
    const handoff = { done: 'The parser.', left: 'The printer.', reason: 'budget', why: 'Two minutes were left.', needs: 'Another round.' };
    const w = world({
      carry: { phase: 'coding', round: 1, pullRequest: 7, headSha: 'head-0', work: [{ kind: 'steer', text: 'Add a printer' }] },
      run: () => ({ outcome: 'budget', submissions: { submit_handoff: handoff } }),
    });
    expect(await new CodingRound(w.unit).run()).toBe('handed_off');
    expect(w.log.names()).toEqual(['prepareUnitWorkspace', 'commitWorkspace', 'pushBranch']);
    expect(w.unit.endedBy).toBe('its budget is nearly spent: Two minutes were left');
    const record = await new Settle(w.unit).run('handed_off');
    expect(record.report).toMatch(/^Ship unit unit:acme\/app:greet handed off: its budget is nearly spent: Two minutes were left\./);
    expect(record.report).toContain('**Done:** The parser.\n**Left:** The printer.\n**Needs:** Another round.');
    expect(record.report).not.toMatch(/ is ready/);
    expect(record.report).toContain('The pull request is not ready.');
  });

  it('a round that only asks (nothing pushed) waits in idle for the answer instead of reviewing the same head again', async () => {
    const findings = [tracked('F1', 'open', { commentId: 501 })];
    const asks = {
      submissions: { submit_dispositions: { dispositions: [{ finding: 'F1', disposition: 'question', text: 'Which locale?' }] } },
    };
    const w = world({
      carry: { phase: 'findings', round: 1, pullRequest: 7, headSha: 'head-0', findings, nextFinding: 2 },
      changed: false,
      run: () => asks,
    });
    expect(await new CodingRound(w.unit).run()).toBeUndefined();
    expect(w.phases).toEqual(['idle']);
    expect(w.unit.carry.findings!.map((f) => f.state)).toEqual(['question']);
    // Units recorded before the patch went on to review that head again.
    const before = world({
      carry: {
        phase: 'findings',
        round: 1,
        pullRequest: 7,
        headSha: 'head-0',
        findings: [tracked('F1', 'open', { commentId: 501 })],
        nextFinding: 2,
      },
      changed: false,
      run: () => asks,
      unpatched: ['unit-waits-for-its-answers'],
    });
    await new CodingRound(before.unit).run();
    expect(before.phases).toEqual(['review']);
  });

  it('with a question, a handoff waits in idle, and the next round starts from it', async () => {
    const handoff = { done: 'A.', left: 'B.', reason: 'decision', why: 'Two designs.', needs: 'A choice.', question: 'Tabs or spaces?' };
    let rounds = 0;
    const w = world({
      carry: { phase: 'coding', round: 1, pullRequest: 7, headSha: 'head-0', work: [{ kind: 'steer', text: 'Format it' }] },
      run: () => (rounds++ === 0 ? { submissions: { submit_handoff: handoff } } : {}),
    });
    expect(await new CodingRound(w.unit).run()).toBeUndefined();
    expect(w.phases).toEqual(['idle']);
    expect(w.log.inputs<{ body: string; effectKey: string }>('postComment')[0]).toMatchObject({
      effectKey: `${UNIT}/handoff/2`,
      body: expect.stringContaining('**Question:** Tabs or spaces?'),
    });
    expect(w.log.inputs('deliverReply')[0]).toMatchObject({ effectKey: `${UNIT}/handoff/2/reply` });
    expect(w.unit.state().questions).toEqual([{ question: 'Tabs or spaces?' }]);
    // A person answers (a steer): the next round is told where the last one stopped.
    w.unit.carry.work.push({ kind: 'steer', text: 'Spaces.', by: 'ana' });
    await new CodingRound(w.unit).run();
    expect(w.runs[1].request).toContain('handed off with a question; a person has answered since');
    expect(w.runs[1].request).toContain('Its question: Tabs or spaces?');
    expect(w.runs[1].request).toContain('A new instruction from ana:\nSpaces.');
    expect(w.unit.carry.handoff).toBeUndefined();
  });
});
