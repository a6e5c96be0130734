/**
 * Records histories that take issue 33's and issue 32 item 1's `patched()` branches (run alone:
 * `npx jest --config jest.record.config.js test/record/issue-33.record.ts`; docs/versioning.md):
 * the review conversation (findings answered on their threads, a fix confirmed and its thread
 * resolved, a decline accepted, a question waiting in idle until a person's reply on its thread),
 * a coding run that hands off, and a unit on its PR's conversation whose own review asked for
 * changes on a head that did not move (reviewed again, never ready, its report posted once).
 * Each scenario names the patches its histories hold; none overwrites an older history.
 */
import { createGitHubActivities, createGitHubIdentities } from '../../activities/github';
import { prEventSignal, stopSignal, unitStateQuery } from '../../workflows/contracts';
import { saveHistory } from '../helpers/history';
import { REPO, startShipKit, type ShipKit } from '../helpers/ship-kit';
import { waitUntil } from '../helpers/wait';

jest.setTimeout(300_000);

const finding = (line: number, title: string, severity = 'minor') => ({
  severity,
  path: 'src/sum.js',
  line,
  title,
  scenario: 'sum(0.1, 0.2) is 0.30000000000000004.',
  impact: 'Money drifts.',
});

describe('issue 33 patches: the review conversation', () => {
  let ship: ShipKit;
  const client = () => ship.kit.env.client;
  const person = () =>
    createGitHubActivities({
      identities: createGitHubIdentities({ apiUrl: ship.github.apiUrl, gitUrl: ship.github.gitUrl, tokens: { write: 'write-token' } }),
    });

  beforeAll(async () => {
    ship = await startShipKit('record-33', { ship: { checksPollSeconds: 10 } });
  });
  afterAll(async () => ship?.close());

  // Patches: unit-answers-findings (ids, dispositions, replies, resolution, declines judged, a question
  // waiting in idle, a person's reply reopening it), unit-gate-reads-own-review (idle reads its own review).
  test('issue 33: three findings answered on their threads, a question answered by a person, ready', async () => {
    const model = ship.model([
      {
        alternatives: [
          {
            when: { lastUserIncludes: '(review 1 of this unit)' },
            text: 'Three findings.',
            toolCalls: [
              {
                name: 'submit_review',
                input: {
                  verdict: 'request_changes',
                  summary: 'Three problems.',
                  findings: [finding(1, 'Floats for money'), finding(1, 'Name the parameters'), finding(1, 'Rounding is undecided')],
                },
              },
            ],
          },
          {
            when: { lastUserIncludes: '(review 2 of this unit)' },
            text: 'Fixed and fair.',
            toolCalls: [
              {
                name: 'submit_review',
                input: {
                  verdict: 'approve',
                  summary: 'Cents.',
                  findings: [],
                  resolved: [1],
                  declines: [{ finding: 2, accept: true, answer: 'Fair.' }],
                },
              },
            ],
          },
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Answered.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Rounded.', findings: [], resolved: [1] } }],
          },
          {
            when: { lastUserIncludes: '- F1 [' },
            text: 'Answering.',
            toolCalls: [
              { name: 'bash', input: { command: 'echo "// cents" >> src/sum.js' } },
              {
                name: 'submit_dispositions',
                input: {
                  dispositions: [
                    { finding: 'F1', disposition: 'fixed', text: 'Cents now.' },
                    { finding: 'F2', disposition: 'declined', reason: 'out_of_scope', text: 'Not this change.' },
                    { finding: 'F3', disposition: 'question', text: 'Down or nearest?' },
                  ],
                },
              },
            ],
          },
          {
            when: { lastUserIncludes: '- F3 [' },
            text: 'Rounding down.',
            toolCalls: [
              { name: 'bash', input: { command: 'echo "// floor" >> src/sum.js' } },
              { name: 'submit_dispositions', input: { dispositions: [{ finding: 'F3', disposition: 'fixed', text: 'Down.' }] } },
            ],
          },
          {
            text: 'Adding cents.',
            toolCalls: [
              { name: 'bash', input: { command: 'echo "// sum in cents" >> src/sum.js' } },
              { name: 'submit_description', input: { title: 'Sum in cents', body: 'Sums cents.' } },
            ],
          },
        ],
      },
      { text: 'Done.' },
      { text: 'Done.' },
    ]);
    const unitId = `unit:${REPO}:record-33-conversation`;
    const unit = await ship.start({ unitId, request: 'Sum in cents', model });
    const waiting = await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'idle' && (state.questions?.length ?? 0) > 0,
      240_000,
    );
    const pull = ship.github.state.repo('acme', 'app')!.issues.get(waiting.pullRequest!)!;
    const f3 = pull.reviewComments.find((c) => c.inReplyTo === undefined && c.body.includes('switchboard-finding: F3'))!;
    // A person answers on the question's thread (the recorder has no webhooks: it signals what GitHub would deliver).
    const response = await fetch(`${ship.github.apiUrl}/repos/${REPO}/pulls/${waiting.pullRequest}/comments/${f3.id}/replies`, {
      method: 'POST',
      headers: { authorization: 'token write-token', 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'Down, always.' }),
    });
    const reply = (await response.json()) as { pull_request_review_id: number };
    await unit.signal(prEventSignal, {
      repo: REPO,
      number: waiting.pullRequest!,
      kind: 'review',
      reviewState: 'commented',
      reviewId: reply.pull_request_review_id,
      actor: 'ana',
      deliveryId: 'record-33-reply',
    });
    await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'idle' && !state.questions && state.round === 3,
      240_000,
    );
    await unit.signal(stopSignal, { reason: 'recorded', by: 'tester' });
    expect((await unit.result()).outcome).toBe('stopped');
    await saveHistory(client(), unitId, 'unit/findings-answered-on-threads');
    await saveHistory(client(), `${unitId}/coding-2-2`, 'run/findings-answered');
  });

  // Patches: unit-answers-findings (submit_handoff: the unit settles handed_off with the handoff in its report).
  test('issue 33: a coding run hands off', async () => {
    const model = ship.model([
      {
        text: 'Stopping here.',
        toolCalls: [
          { name: 'bash', input: { command: 'echo "// started" >> src/sum.js' } },
          {
            name: 'submit_handoff',
            input: { done: 'A start.', left: 'The rest.', reason: 'blocker', why: 'No access.', needs: 'Access.' },
          },
        ],
      },
      { text: 'Handed off.' },
    ]);
    const unitId = `unit:${REPO}:record-33-handoff`;
    const unit = await ship.start({ unitId, request: 'Start the ledger', model });
    expect((await unit.result()).outcome).toBe('handed_off');
    await saveHistory(client(), unitId, 'unit/handed-off');
  });

  // Patches: unit-gate-reads-own-review (a head its own review asked changes on is reviewed again,
  // under its own key, and never called ready), unit-reports-once-on-its-pr, unit-answers-findings
  // (a round that answers nothing is told once, and its findings go unanswered to the next review).
  test('issue 32: a unit on its PR whose own review asks for changes and whose rounds change nothing', async () => {
    ship.github.commit(REPO, 'record-33-own', { 'own.txt': 'one\n' });
    const pr = await person().openOrUpdatePullRequest({
      repo: REPO,
      head: 'record-33-own',
      base: 'main',
      title: 'O',
      body: 'o',
      effectKey: 'o',
    });
    const model = ship.model([
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Still wrong.',
            toolCalls: [
              {
                name: 'submit_review',
                input: {
                  verdict: 'request_changes',
                  summary: 'One major defect.',
                  findings: [{ ...finding(1, 'One is not a number', 'major'), path: 'own.txt' }],
                },
              },
            ],
          },
          { text: 'Nothing to change.' },
        ],
      },
      { text: 'Still nothing.' },
      { text: 'Done.' },
    ]);
    const unitId = `unit:${REPO}#${pr.number}`;
    const unit = await ship.start({
      unitId,
      pullRequest: pr.number,
      request: 'Keep it honest',
      model,
      replyTarget: { kind: 'github', repo: REPO, pullRequest: pr.number! },
    });
    expect((await unit.result()).outcome).toBe('out_of_rounds');
    const comments = ship.github.state.repo('acme', 'app')!.issues.get(pr.number!)!.comments;
    expect(comments.filter((c) => c.body.startsWith(`Ship unit ${unitId} out of rounds`))).toHaveLength(1);
    await saveHistory(client(), unitId, 'unit/own-review-asks-changes-on-its-pr');
  });
});
