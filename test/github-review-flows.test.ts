import { threadStateQuery, unitStateQuery } from '../workflows/contracts';
import { ANA, BOB, finding, ROUNDED, startFlows, TOTAL, type Flows } from './helpers/github-flows';
import { startHttpMcpServer, type HttpMcpServer } from './helpers/mcp-servers';
import { waitUntil } from './helpers/wait';

jest.setTimeout(240_000);

/**
 * Issue 25 end to end, pull requests: a person's pull request is reviewed on its own when opened,
 * with an inline comment and a suggestion on the right line, once per commit whatever GitHub
 * delivers again or asks anew; a burst of pushes is reviewed once more, at its last head, saying
 * which findings it resolved; `@switchboard stop` on a pull request stops the unit at work on it;
 * the broken key of `.switchboard.yml` is named once in the conversation. On the real product with
 * a local GitHub (test/helpers/github-flows.ts).
 */

const PUSH_REVIEW = {
  when: { lastUserIncludes: 'new commits were pushed' },
  text: 'Rounded now.',
  toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Rounded.', findings: [], resolved: [1] } }],
};
const SLOW = { when: { lastUserIncludes: 'Take your time' }, text: 'Thinking it over.', delayMs: 120_000 };

const SCRIPT = [
  {
    alternatives: [
      {
        when: { lastUserIncludes: 'it was opened' },
        text: 'Fractions of a cent.',
        toolCalls: [
          {
            name: 'submit_review',
            input: {
              verdict: 'request_changes',
              summary: 'The total is not rounded.',
              findings: [
                finding('The total keeps fractions of a cent', 'src/total.js', 3, {
                  suggestion: ROUNDED,
                  scenario: 'total(999, 10) returns 899.1.',
                }),
              ],
            },
          },
        ],
      },
      PUSH_REVIEW,
      SLOW,
      { text: 'Nothing asked of me here.' },
    ],
  },
  // A pull request's conversation carries its last exchange into the next run, so its later runs start a turn later.
  { alternatives: [PUSH_REVIEW, SLOW, { text: 'Done.' }] },
  { text: 'Done.' },
];

let flows: Flows;
let notes: HttpMcpServer;

beforeAll(async () => {
  // The deployment configures an MCP server and attaches it to nothing; the repository attaches it to its reviews.
  notes = await startHttpMcpServer();
  flows = await startFlows('review-flows', SCRIPT, {
    config: { mcp: { servers: { notes: { transport: 'http', url: notes.url, network: 'private' } } } },
    settings: 'mcp:\n  agents:\n    review: [{ server: notes, tools: [add] }]\n',
  });
});
afterAll(async () => {
  await flows?.close();
  await notes?.close();
});

it('reviews a person’s pull request when opened, on its lines, once per commit, and once more after a burst of pushes, saying what they resolved', async () => {
  const { as, item, github, client, repo, ours } = flows;
  github.commit(repo, 'ana/no-rounding', { 'src/total.js': TOTAL('  return cents * (1 - percent / 100);') }, 'Take the percentage off');
  const opened = await as(ANA, 'POST', '/pulls', { head: 'ana/no-rounding', base: 'main', title: 'Percentages', body: 'Please review.' });
  const reviews = () => item(opened.number).reviews;
  const thread = client.workflow.getHandle(flows.threadOf(opened.number));
  await waitUntil(
    async () => reviews().length,
    (n) => n >= 1,
    90_000,
  );
  const [review] = reviews();
  expect(review.commitId).toBe(opened.head.sha);
  expect(review.body).toMatch(/^\*\*Verdict: changes requested\*\*/);
  expect(item(opened.number).reviewComments).toEqual([
    expect.objectContaining({ path: 'src/total.js', line: 3, side: 'RIGHT', suggestion: ROUNDED, commitId: opened.head.sha }),
  ]);
  expect(item(opened.number).reviewComments[0].body).toContain('The total keeps fractions of a cent');

  // The same commit again: GitHub redelivers the `opened` webhook, and Bob asks the bot for a review.
  await github.webhooks.settle();
  const openedDelivery = github.webhooks.deliveries.find(
    (d) => d.event === 'pull_request' && (JSON.parse(d.body) as { action?: string }).action === 'opened',
  )!;
  expect((await github.webhooks.redeliver(openedDelivery.id)).status).toBe(202);
  await as(BOB, 'POST', `/pulls/${opened.number}/requested_reviewers`, { reviewers: ['switchboard'] });
  await github.webhooks.settle();
  const once = await waitUntil(
    () => thread.query(threadStateQuery),
    (state) => !state.currentRunId && state.queued === 0 && state.outcomes.some((outcome) => outcome.kind === 'duplicate'),
  );
  expect(once.outcomes.map((outcome) => outcome.kind)).toEqual(['run', 'duplicate']);
  expect(reviews()).toHaveLength(1);

  // Two pushes within the debounce: one review, of the last head.
  github.commit(repo, 'ana/no-rounding', { 'src/total.js': TOTAL(ROUNDED) }, 'Round', 'ana');
  const last = github.commit(repo, 'ana/no-rounding', { 'NOTES.md': 'Rounded to the cent.\n' }, 'Notes', 'ana');
  await waitUntil(
    async () => reviews().length,
    (n) => n >= 2,
    90_000,
  );
  expect(reviews()[1].commitId).toBe(last);
  expect(reviews()[1].body).toContain(
    `**Resolved since the review of ${opened.head.sha.slice(0, 12)}:**\n- 1. ~~The total keeps fractions of a cent~~`,
  );
  // Nothing more comes: the first push's review was replaced by the second's, and nothing waits.
  await github.webhooks.settle();
  const settled = await waitUntil(
    () => thread.query(threadStateQuery),
    (state) => !state.currentRunId && !state.pendingReview && state.queued === 0,
  );
  expect(settled.outcomes.filter((outcome) => outcome.kind === 'run')).toHaveLength(2);
  expect(reviews()).toHaveLength(2);
  // The repository's .switchboard.yml attached the deployment's MCP server to its reviews, with its allowlist.
  const first = await client.workflow.getHandle(`run:${flows.threadOf(opened.number)}:1`).result();
  expect(first.mcp?.tools).toEqual(['mcp__notes__add']);
  // Each automatic review's card says its answer is the review it posted: no answer follows it.
  expect(ours(opened.number).filter((comment) => comment.body.includes('The answer follows below.'))).toEqual([]);
  expect(ours(opened.number).filter((comment) => comment.body.includes('Its answer is the review it posted'))).toHaveLength(2);
  // The broken key of .switchboard.yml was named once in this conversation, whatever ran in it.
  expect(ours(opened.number).filter((comment) => comment.body.includes('`colour`: unknown key'))).toHaveLength(1);
});

it('stops the unit at work on a pull request when a collaborator says `@switchboard stop` there', async () => {
  const { as, client, github, repo, ours } = flows;
  github.commit(repo, 'ana/tax', { 'src/tax.js': 'module.exports = () => 0;\n' }, 'Tax stub');
  // A draft: nothing reviews it on its own.
  const pr = await as(ANA, 'POST', '/pulls', { head: 'ana/tax', base: 'main', title: 'Tax', body: 'Stub.', draft: true });
  await as(ANA, 'POST', `/issues/${pr.number}/comments`, { body: '@switchboard agent:ship Take your time and fill in the tax table' });
  const unitId = `unit:${repo}#${pr.number}`;
  await waitUntil(
    () => client.workflow.getHandle(unitId).query(unitStateQuery),
    (state) => state.currentRun !== undefined,
    90_000,
  );

  await as(BOB, 'POST', `/issues/${pr.number}/comments`, { body: '@switchboard stop: Ana will write it by hand' });
  const stopped = await waitUntil(
    () => client.workflow.getHandle(unitId).query(unitStateQuery),
    (state) => state.outcome === 'stopped',
  );
  expect(stopped.pullRequest).toBe(pr.number);
  await waitUntil(async () => ours(pr.number).some((c) => /stopped by github:bob: Ana will write it by hand/.test(c.body)), Boolean);
  expect(flows.item(pr.number).reviews).toEqual([]);
});

it('names a broken key inside `review:` once on a pull request that it left without an automatic review', async () => {
  const { github, client } = flows;
  // A repository of its own, whose review triggers are mistyped (a word, not a list): no trigger is left.
  const [owner, name] = [`broken-${flows.repo.split('/')[0]}`, 'app'];
  const repo = `${owner}/${name}`;
  github.createRepo(
    owner,
    name,
    { 'README.md': '# app\n', '.switchboard.yml': 'review:\n  triggers: opened\n  debounceSeconds: 2\n' },
    { collaborators: { ana: 'write' } },
  );
  github.commit(repo, 'ana/readme', { 'README.md': '# app\n\nMore.\n' }, 'More words');
  const call = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${github.apiUrl}/repos/${repo}${path}`, {
      method,
      headers: { authorization: `token ${ANA}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.ok).toBe(true);
    return (await response.json()) as { number: number };
  };
  const opened = await call('POST', '/pulls', { head: 'ana/readme', base: 'main', title: 'More', body: 'Words.' });
  const notices = () =>
    github.state
      .repo(owner, name)!
      .issues.get(opened.number)!
      .comments.filter((comment) => comment.user === 'switchboard[bot]' && comment.body.includes('`review.triggers`'));
  await waitUntil(
    async () => notices().length,
    (n) => n === 1,
    60_000,
  );
  expect(notices()[0].body).toContain('.switchboard.yml');
  // A push is another event the broken key leaves without a review: nothing is said twice.
  github.commit(repo, 'ana/readme', { 'README.md': '# app\n\nMore words.\n' }, 'Even more');
  await github.webhooks.settle();
  expect(notices()).toHaveLength(1);
  // No review, and no thread: the broken key decided that, and the conversation was told why.
  expect(github.state.repo(owner, name)!.issues.get(opened.number)!.reviews).toEqual([]);
  await expect(client.workflow.getHandle(`thread:gh:${repo}#${opened.number}`).describe()).rejects.toThrow();
});
