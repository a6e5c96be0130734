import { threadStateQuery, unitStateQuery } from '../workflows/contracts';
import { ANA, BOB, finding, startFlows, type Flows, type Json } from './helpers/github-flows';
import { waitUntil } from './helpers/wait';

jest.setTimeout(420_000);

/**
 * Issue 33 end to end, on the real product with a local GitHub and CI: a unit whose review raises
 * three findings; the coding round fixes one, declines one with a reason and asks about one; three
 * replies land on the three threads; the next review resolves the fixed thread and accepts the
 * decline (its thread resolved too), and the unit waits for the answer to the question, never
 * calling the PR ready; Ana's reply on that thread resumes it and it ends ready. Then Bob's inline
 * comment gets its answer on its line. And a coding run that cannot finish hands off: the unit
 * settles `handed_off` with its text on the PR and in the issue's conversation.
 */
const DISCOUNT = 'const rate = 0.1;\nfunction discount(cents) {\n  return cents * rate;\n}\nmodule.exports = discount;\n';
const LINE = (n: number, title: string, extra: Record<string, unknown> = {}) => finding(title, 'src/discount.js', n, extra);

const SCRIPT = [
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
              summary: 'A discount module with three problems.',
              findings: [
                LINE(1, 'The rate is a float: money must stay in cents'),
                LINE(2, 'The function should take a percentage argument'),
                LINE(3, 'Rounding is not decided', { severity: 'major' }),
              ],
            },
          },
        ],
      },
      {
        when: { lastUserIncludes: '(review 2 of this unit)' },
        text: 'The fix holds; the decline is fair.',
        toolCalls: [
          {
            name: 'submit_review',
            input: {
              verdict: 'approve',
              summary: 'The rate is in basis points now.',
              findings: [],
              resolved: [1],
              declines: [{ finding: 2, accept: true, answer: 'Fair: the signature is the issue for a separate change.' }],
            },
          },
        ],
      },
      {
        // After Bob's comment: nothing of the unit's own to resolve.
        when: { lastUserIncludes: '(review 4 of this unit)' },
        text: 'Exported by name.',
        toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Exported by name.', findings: [] } }],
      },
      {
        when: { lastUserIncludes: 'of this unit)' },
        text: 'All answered.',
        toolCalls: [
          { name: 'submit_review', input: { verdict: 'approve', summary: 'Rounded down, as asked.', findings: [], resolved: [1] } },
        ],
      },
      {
        // Round 1 answers F1, F2 and F3.
        when: { lastUserIncludes: '- F1 [' },
        text: 'Fixing the rate, declining the signature, asking about rounding.',
        toolCalls: [
          {
            name: 'update_status',
            input: {
              summary: 'Answering the review',
              steps: [
                { title: 'Fix the rate', state: 'done' },
                { title: 'Answer the findings', state: 'running' },
              ],
            },
          },
          {
            name: 'bash',
            input: {
              command:
                "sed -i '1s/.*/const basisPoints = 1000;/; 3s/.*/  return (cents * basisPoints) \\/ 10000;/' src/discount.js && " +
                'git add -A && git -c user.name=t -c user.email=t@t commit -qm "Keep the rate in basis points"',
            },
          },
          {
            name: 'submit_dispositions',
            input: {
              dispositions: [
                { finding: 'F1', disposition: 'fixed', text: 'The rate is 1000 basis points, an integer.' },
                {
                  finding: 'F2',
                  disposition: 'declined',
                  reason: 'out_of_scope',
                  text: 'Callers pass no percentage today; changing the signature is a separate change.',
                },
                { finding: 'F3', disposition: 'question', text: 'Should a fraction of a cent round down or to the nearest cent?' },
              ],
            },
          },
        ],
      },
      {
        // Round 2: Ana answered the question on its thread.
        when: { lastUserIncludes: '- F3 [' },
        text: 'Rounding down, as Ana answered.',
        toolCalls: [
          {
            name: 'bash',
            input: {
              command:
                "sed -i '3s/.*/  return Math.floor((cents * basisPoints) \\/ 10000);/' src/discount.js && " +
                'git add -A && git -c user.name=t -c user.email=t@t commit -qm "Round the discount down"',
            },
          },
          {
            name: 'submit_dispositions',
            input: { dispositions: [{ finding: 'F3', disposition: 'fixed', text: 'Rounded down with Math.floor.' }] },
          },
        ],
      },
      {
        // Round 3: Bob's line comment.
        when: { lastUserIncludes: "- F4 bob's comment" },
        text: 'Exporting it by name.',
        toolCalls: [
          {
            name: 'bash',
            input: {
              command:
                "sed -i '5s/.*/module.exports = { discount };/' src/discount.js && git add -A && git -c user.name=t -c user.email=t@t commit -qm Export",
            },
          },
          { name: 'submit_dispositions', input: { dispositions: [{ finding: 'F4', disposition: 'fixed', text: 'Exported by name.' }] } },
        ],
      },
      {
        when: { lastUserIncludes: 'Add a tax module' },
        text: 'Starting the tax module; the rates are not mine to choose.',
        toolCalls: [
          {
            name: 'bash',
            input: {
              command:
                "printf 'module.exports = {};\\n' > src/tax.js && git add -A && git -c user.name=t -c user.email=t@t commit -qm 'Tax stub'",
            },
          },
          {
            name: 'submit_handoff',
            input: {
              done: 'src/tax.js exists as an empty module.',
              left: 'The tax table and its tests.',
              reason: 'decision',
              why: 'The tax rates per region are a business decision.',
              needs: 'The rates for each region, from finance.',
            },
          },
        ],
      },
      { text: 'Nothing asked of me here.' },
    ],
  },
  { text: 'Done.' },
  { text: 'Done.' },
];

let flows: Flows;

beforeAll(async () => {
  flows = await startFlows('conversation', SCRIPT);
});
afterAll(async () => {
  await flows?.close();
});

it('answers each finding on its thread, resolves what the next review confirms, waits for a question’s answer, and answers a person on their line', async () => {
  const { as, client, github, item, ours, repo } = flows;
  github.commit(repo, 'ana/discount', { 'src/discount.js': DISCOUNT }, 'Add a discount');
  // A draft: no automatic review of its own; the unit's reviews are the only ones.
  const opened = await as(ANA, 'POST', '/pulls', {
    head: 'ana/discount',
    base: 'main',
    title: 'Discounts',
    body: 'Adds a discount.',
    draft: true,
  });
  const pr = () => item(opened.number);
  await as(ANA, 'POST', `/issues/${opened.number}/comments`, { body: '@switchboard agent:ship Get the discount right' });
  const unitId = `unit:${repo}#${opened.number}`;
  const unit = client.workflow.getHandle(unitId);
  const state = () => unit.query(unitStateQuery);
  const roots = () => pr().reviewComments.filter((c) => c.inReplyTo === undefined && c.user === 'switchboard[bot]');
  const repliesTo = (id: number) => pr().reviewComments.filter((c) => c.inReplyTo === id);
  const saidReady = () => ours(opened.number).filter((c) => /PR #\d+ on \S+ is ready/.test(c.body));

  // The question waits: the unit is idle, says what it asks, and never says ready.
  const waiting = (await waitUntil(
    () => state().catch(() => undefined),
    (s) => (s?.questions?.length ?? 0) > 0 && s?.phase === 'idle',
    300_000,
  ))!;
  expect(waiting.questions).toEqual([
    { finding: 'F3', place: 'src/discount.js:3', question: 'Should a fraction of a cent round down or to the nearest cent?' },
  ]);
  const [f1, f2, f3] = roots();
  expect([f1, f2, f3].map((c) => c.line)).toEqual([1, 2, 3]);
  // Three replies on the three threads: fixed (naming the pushed commit), declined with its reason, the question.
  const fixedIn = waiting.headSha!.slice(0, 12);
  expect(repliesTo(f1.id)[0].body).toMatch(new RegExp(`^Fixed in [0-9a-f]{12}\\.\\n\\nThe rate is 1000 basis points`));
  expect(repliesTo(f1.id)[0].body).toContain(fixedIn.slice(0, 7));
  expect(repliesTo(f2.id)[0].body).toMatch(/^Declined \(out of scope\): Callers pass no percentage today/);
  expect(repliesTo(f3.id)[0].body).toMatch(/^Question: Should a fraction of a cent round down/);
  // The next review resolved the fixed thread and accepted the decline (answered and resolved); the question's stays open.
  expect(repliesTo(f2.id)[1].body).toMatch(/^The review of [0-9a-f]{12} accepts this decline: Fair: the signature/);
  expect([f1, f2, f3].map((c) => Boolean(c.resolvedBy))).toEqual([true, true, false]);
  await waitUntil(
    async () => ours(opened.number).filter((c) => c.body.includes('waits for an answer before it can be ready')),
    (list) => list.length === 1,
  );
  expect(saidReady()).toEqual([]);

  // Ana answers on the question's thread: the unit goes on, fixes it, and ends ready.
  await as(ANA, 'POST', `/pulls/${opened.number}/comments/${f3.id}/replies`, { body: 'Round down, always.' });
  await waitUntil(
    async () => saidReady().length,
    (n) => n === 1,
    240_000,
  );
  expect(repliesTo(f3.id).map((c) => c.body.split('\n')[0])).toEqual([
    'Question: Should a fraction of a cent round down or to the nearest cent?',
    'Round down, always.',
    expect.stringMatching(/^Fixed in [0-9a-f]{12}\.$/),
  ]);
  expect(Boolean(roots()[2].resolvedBy)).toBe(true);
  const ready = await state();
  expect(ready).toMatchObject({ phase: 'idle', lastReview: { verdict: 'approve', commitSha: ready.headSha } });
  expect(ready.questions).toBeUndefined();

  // Bob's inline comment on the unit's PR: answered on its line.
  const head = ready.headSha!;
  const review: Json = await as(BOB, 'POST', `/pulls/${opened.number}/reviews`, {
    commit_id: head,
    event: 'COMMENT',
    body: '',
    comments: [{ path: 'src/discount.js', line: 5, side: 'RIGHT', body: 'Export it by name, please.' }],
  });
  const bobs = pr().reviewComments.find((c) => c.reviewId === review.id)!;
  await waitUntil(
    async () => repliesTo(bobs.id),
    (replies) => replies.length === 1,
    240_000,
  );
  expect(repliesTo(bobs.id)[0]).toMatchObject({
    user: 'switchboard[bot]',
    path: 'src/discount.js',
    body: expect.stringMatching(/^Fixed in [0-9a-f]{12}\.\n\nExported by name\./),
  });
  // A person's thread is theirs to resolve.
  expect(bobs.resolvedBy).toBeUndefined();
  await waitUntil(
    async () => saidReady().length,
    (n) => n === 2,
    240_000,
  );

  // Every reply once, whatever GitHub delivered again meanwhile.
  const keys = pr()
    .reviewComments.map((c) => /switchboard-effect: ([^ ]+) -->/.exec(c.body)?.[1])
    .filter(Boolean);
  expect(new Set(keys).size).toBe(keys.length);
  const thread = await client.workflow.getHandle(flows.threadOf(opened.number)).query(threadStateQuery);
  expect(thread.outcomes.filter((o) => o.kind === 'run')).toEqual([]);
});

it('a coding run that cannot finish hands off: the unit settles handed_off with its text on the PR and in the conversation', async () => {
  const { as, client, item, ours } = flows;
  const issue = await as(ANA, 'POST', '/issues', { title: 'Taxes', body: 'We need taxes on invoices.' });
  await as(ANA, 'POST', `/issues/${issue.number}/comments`, { body: '@switchboard agent:ship Add a tax module' });
  const unitId = await flows.runningUnitOf(flows.threadOf(issue.number));
  const record = await client.workflow.getHandle(unitId).result();
  expect(record).toMatchObject({
    outcome: 'handed_off',
    endedBy: 'a decision only a person can make: The tax rates per region are a business decision',
  });
  expect(record.report).toContain('**Needs:** The rates for each region, from finance.');
  const pull = record.pullRequest!;
  expect(item(pull).pull).toBeDefined();
  for (const number of [issue.number, pull]) {
    const said = ours(number).filter((c) => c.body.includes(`Ship unit ${unitId} handed off`));
    expect(said).toHaveLength(1);
    expect(said[0].body).toContain('**Done:** src/tax.js exists as an empty module.');
    expect(said[0].body).not.toMatch(/ is ready/);
  }
});
