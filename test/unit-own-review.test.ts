import { stopSignal, threadStateQuery, unitStateQuery } from '../workflows/contracts';
import { ANA, finding, startFlows, TOTAL, type Flows } from './helpers/github-flows';
import { waitUntil } from './helpers/wait';

jest.setTimeout(300_000);

/**
 * Issue 32, item 1, on the real product with a local GitHub and CI: a person's PR whose automatic
 * review approved its head H; `@switchboard agent:ship` on it; the unit's own review of H asks for
 * changes (one `major` finding) and its coding rounds change nothing. The unit must never say the
 * PR is ready (the automatic approval of H is not its review, and its own review of H asked for
 * changes), and its final report lands once on the PR, which is its conversation.
 */
const MAJOR = finding('A negative discount raises the total', 'src/total.js', 3, {
  severity: 'major',
  scenario: 'total(1000, -50) returns 1050.',
});

const SCRIPT = [
  {
    alternatives: [
      {
        when: { lastUserIncludes: 'it was opened' },
        text: 'Fine by me.',
        toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Takes the discount off.', findings: [] } }],
      },
      {
        when: { lastUserIncludes: 'of this unit)' },
        text: 'One major defect.',
        toolCalls: [{ name: 'submit_review', input: { verdict: 'request_changes', summary: 'Unbounded discount.', findings: [MAJOR] } }],
      },
      // The coding rounds decide no change is needed and end without touching the branch.
      { when: { lastUserIncludes: 'This is round' }, text: 'I see nothing to change here.' },
      { text: 'Nothing asked of me here.' },
    ],
  },
  { text: 'Done.' },
  { text: 'Done.' },
];

let flows: Flows;

beforeAll(async () => {
  flows = await startFlows('own-review', SCRIPT, { config: { ship: { maxRounds: 1, checksPollSeconds: 10 } } });
});
afterAll(async () => {
  await flows?.close();
});

it('never says ready against its own request for changes, whatever an automatic review approved, and reports once on its PR', async () => {
  const { as, client, github, item, ours, repo } = flows;
  github.commit(repo, 'ana/discount', { 'src/total.js': TOTAL('  return cents - (cents * percent) / 100;') }, 'Percent discount');
  const opened = await as(ANA, 'POST', '/pulls', { head: 'ana/discount', base: 'main', title: 'Discounts', body: 'Percentages.' });
  const head = opened.head.sha as string;
  // The conversation's automatic review approves H.
  await waitUntil(
    async () => item(opened.number).reviews,
    (reviews) => reviews.length >= 1,
    90_000,
  );
  expect(item(opened.number).reviews[0]).toMatchObject({ commitId: head, body: expect.stringMatching(/^\*\*Verdict: approve\*\*/) });
  // A mention while the review run works would steer it: ask once the conversation is free.
  await waitUntil(
    () => client.workflow.getHandle(flows.threadOf(opened.number)).query(threadStateQuery),
    (state) => !state.currentRunId && state.queued === 0,
  );

  await as(ANA, 'POST', `/issues/${opened.number}/comments`, { body: '@switchboard agent:ship Keep the total honest' });
  const unitId = `unit:${repo}#${opened.number}`;
  const unit = client.workflow.getHandle(unitId);
  // It settles, or (as it did before issue 32) calls the PR ready; then it is stopped, and reports.
  const saidReady = () => ours(opened.number).filter((comment) => /PR #\d+ on \S+ is ready/.test(comment.body));
  const settled = async () => (await unit.describe().catch(() => undefined))?.status.name;
  await waitUntil(
    async () => ({ status: await settled(), ready: saidReady().length }),
    ({ status, ready }) => status === 'COMPLETED' || status === 'FAILED' || ready > 0,
    240_000,
  );
  if ((await settled()) === 'RUNNING') await unit.signal(stopSignal, { reason: 'the test saw it call the PR ready', by: 'test' });
  const record = await unit.result();

  // Never ready: its own reviews of H asked for changes each time and nothing changed.
  expect(saidReady()).toEqual([]);
  // The final report, once: the unit's conversation is this PR.
  const reports = ours(opened.number).filter((comment) => comment.body.includes(`Ship unit ${unitId} `));
  expect(reports.map((report) => report.body.split('\n')[0])).toEqual([`Ship unit ${unitId} out of rounds.`]);
  expect(reports[0].body).toContain(`Last review: request_changes on ${head.slice(0, 12)}`);
  expect(record).toMatchObject({ outcome: 'out_of_rounds', pullRequest: opened.number });
  const own = item(opened.number).reviews.filter((review) => review.body.includes(`switchboard-effect: ${unitId}/review/`));
  expect(own.length).toBeGreaterThanOrEqual(2);
  expect(own.every((review) => review.commitId === head && /^\*\*Verdict: changes requested\*\*/.test(review.body))).toBe(true);
  await expect(unit.query(unitStateQuery)).resolves.toMatchObject({ outcome: 'out_of_rounds' });
});
