import { threadStateQuery, unitStateQuery } from '../workflows/contracts';
import { ANA, BOB, CLAMPED, finding, ROUNDED, startFlows, TOTAL, type Flows } from './helpers/github-flows';
import { waitUntil } from './helpers/wait';

jest.setTimeout(240_000);

/**
 * Issue 25 end to end, issues: an issue assigned to the bot becomes a ready PR that fixes it,
 * reviewed on its lines on the way, with the repository's AGENTS.md in its runs' prompts and its
 * setup run once per workspace; merging it brings the unit's final report to the issue. A label
 * starts a unit and removing it stops the unit, as unassigning does; a reply steers a unit at work
 * and `@switchboard stop` stops it. On the real product with a local GitHub (test/helpers/github-flows.ts).
 */

/** One scripted model for every run: the request (and the system prompt) pick the turn. */
const SCRIPT = [
  {
    alternatives: [
      {
        when: { lastUserIncludes: '(review 1 of this unit)' },
        text: 'One finding on the line, one outside the diff.',
        toolCalls: [
          {
            name: 'submit_review',
            input: {
              verdict: 'request_changes',
              summary: 'Takes the percentage off; nothing bounds it.',
              findings: [
                finding('A discount above 100% makes the total negative', 'src/total.js', 3, { suggestion: CLAMPED }),
                { ...finding('The README does not say totals are in cents', 'README.md', 1), severity: 'nit' },
              ],
            },
          },
        ],
      },
      {
        when: { lastUserIncludes: '(review 2 of this unit)' },
        text: 'The clamp holds.',
        toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Clamped.', findings: [], resolved: [1] } }],
      },
      {
        when: { lastUserIncludes: 'The review asks' },
        text: 'Clamping.',
        toolCalls: [{ name: 'write_file', input: { path: 'src/total.js', content: TOTAL(CLAMPED) } }],
      },
      { when: { lastUserIncludes: 'Take your time' }, text: 'Thinking it over.', delayMs: 120_000 },
      {
        // Only when src/AGENTS.md reached the system prompt does the run say so in its PR.
        when: { lastUserIncludes: 'Issue #', systemIncludes: 'Money is kept in cents' },
        text: 'Applying the percentage, in cents as src/AGENTS.md says.',
        toolCalls: [
          { name: 'write_file', input: { path: 'src/total.js', content: TOTAL(ROUNDED) } },
          {
            name: 'submit_description',
            input: { title: 'Apply the discount as a percentage', body: 'Per src/AGENTS.md, money stays in cents.' },
          },
        ],
      },
      {
        text: 'No instructions reached me.',
        toolCalls: [
          { name: 'write_file', input: { path: 'src/total.js', content: TOTAL('  return 0;') } },
          { name: 'submit_description', input: { title: 'Without instructions', body: 'NO INSTRUCTIONS' } },
        ],
      },
    ],
  },
  { text: 'Done.' },
];

let flows: Flows;

beforeAll(async () => {
  flows = await startFlows('issue-flows', SCRIPT);
});
afterAll(async () => {
  await flows?.close();
});

it('turns an issue assigned to the bot into a ready PR that fixes it, reviewed on its lines, with the repository’s instructions and setup', async () => {
  const { as, item, ours, client } = flows;
  const issue = await as(ANA, 'POST', '/issues', {
    title: 'Apply the discount as a percentage',
    body: 'total(1000, 10) in src/total.js should be 900, not 990.',
  });
  await as(ANA, 'POST', `/issues/${issue.number}/comments`, { body: 'It must stay in whole cents.' });
  await as(ANA, 'POST', `/issues/${issue.number}/assignees`, { assignees: ['switchboard'] });

  const ready = await waitUntil(
    async () => ours(issue.number).find((comment) => /^PR #\d+ on .* is ready/.test(comment.body)),
    (found) => found !== undefined,
    180_000,
  ).catch((error: Error) => {
    throw new Error(
      `${error.message}\n${JSON.stringify(ours(issue.number).map((c) => c.body.slice(0, 300)))}\n${flows.product.output().slice(-3000)}`,
    );
  });
  const number = Number(/PR #(\d+)/.exec(ready!.body)![1]);
  const pull = item(number);
  // The PR fixes the issue, and its coding run read src/AGENTS.md (the script's other branch says otherwise).
  expect(pull).toMatchObject({ title: 'Apply the discount as a percentage', state: 'open' });
  expect(pull.pull!.draft).toBe(false);
  expect(pull.body).toContain('Per src/AGENTS.md, money stays in cents.');
  expect(pull.body).toContain(`Fixes #${issue.number}`);

  // The first review sits on the changed line with a suggestion; the finding outside the diff is in its body.
  expect(pull.reviews).toHaveLength(2);
  const [first, second] = pull.reviews;
  const lines = pull.reviewComments.filter((comment) => comment.reviewId === first.id);
  expect(lines).toEqual([
    expect.objectContaining({ path: 'src/total.js', line: 3, side: 'RIGHT', suggestion: CLAMPED, commitId: first.commitId }),
  ]);
  expect(lines[0].body).toMatch(/^\*\*minor\*\* · A discount above 100% makes the total negative/);
  expect(first.body).toMatch(/^\*\*Verdict: changes requested\*\* \(1 at or above `minor`\)/);
  expect(first.body).toContain('**Outside the diff**\n\n2. **nit** `README.md:1` — **The README does not say totals are in cents**');
  // The second, on the fix round's head, says which finding the push resolved.
  expect(second.commitId).not.toBe(first.commitId);
  expect(second.body).toContain(
    `**Resolved since the review of ${first.commitId.slice(0, 12)}:**\n- 1. ~~A discount above 100% makes the total negative~~`,
  );
  expect(pull.reviewComments.filter((comment) => comment.reviewId === second.id)).toEqual([]);

  // On the issue: the unit started, each run's card names the instructions it loaded and how the setup went:
  // run by the first round, found done by the second in the same workspace.
  const cards = ours(issue.number).filter((comment) => comment.body.startsWith('**coding**'));
  expect(cards).toHaveLength(2);
  for (const card of cards) expect(card.body).toContain('Instructions: src/AGENTS.md, AGENTS.md');
  expect(cards[0].body).toMatch(/Setup: done in \d+s/);
  expect(cards[0].body).toContain('installing the dependencies');
  expect(cards[1].body).toContain('Setup: done before in this workspace, not run again');
  // A broken key of .switchboard.yml is said once in the conversation, naming the key; the rest applied.
  expect(ours(issue.number).filter((comment) => comment.body.includes('`colour`: unknown key'))).toHaveLength(1);
  expect(ours(issue.number).some((comment) => /^Started ship unit unit:.*:issue-\d+-apply-the-discount/.test(comment.body))).toBe(true);

  // Merged, the unit ends and its final report reaches the issue.
  const unitId = await flows.runningUnitOf(flows.threadOf(issue.number));
  await as(ANA, 'PUT', `/pulls/${number}/merge`, {});
  const settled = await waitUntil(
    () => client.workflow.getHandle(unitId).query(unitStateQuery),
    (state) => state.outcome !== undefined,
    60_000,
  );
  expect(settled.outcome).toBe('merged');
  // `Fixes #n` closed the issue on the merge, as completed: that stops nothing, the unit settled on its PR.
  expect(flows.item(issue.number).state).toBe('closed');
  const report = await waitUntil(
    async () => ours(issue.number).find((comment) => comment.body.startsWith(`Ship unit ${unitId} merged: the pull request was merged.`)),
    (found) => found !== undefined,
  );
  expect(report!.body).toContain(`PR #${number} on ${flows.repo}; 2 coding rounds, 2 reviews.`);
});

it('starts a unit for a labelled issue and stops it when the label goes, and one for an assigned issue that stops when unassigned or closed', async () => {
  const { as, client, ours } = flows;
  const labelled = await as(ANA, 'POST', '/issues', { title: 'Take your time with the currency list', body: 'Later.' });
  await as(ANA, 'POST', `/issues/${labelled.number}/labels`, { labels: ['switchboard'] });
  const byLabel = await flows.runningUnitOf(flows.threadOf(labelled.number));
  await as(ANA, 'DELETE', `/issues/${labelled.number}/labels/switchboard`);
  const unlabelled = await waitUntil(
    () => client.workflow.getHandle(byLabel).query(unitStateQuery),
    (state) => state.outcome === 'stopped',
  );
  expect(unlabelled.pullRequest).toBeUndefined();
  await waitUntil(
    async () => ours(labelled.number).some((c) => /stopped by github:ana: the switchboard label was removed/.test(c.body)),
    Boolean,
  );

  const assigned = await as(ANA, 'POST', '/issues', { title: 'Take your time with the rounding rules', body: 'Later too.' });
  await as(ANA, 'POST', `/issues/${assigned.number}/assignees`, { assignees: ['switchboard'] });
  const byAssignment = await flows.runningUnitOf(flows.threadOf(assigned.number));
  await waitUntil(
    () => client.workflow.getHandle(byAssignment).query(unitStateQuery),
    (state) => state.currentRun !== undefined,
  );
  await as(BOB, 'DELETE', `/issues/${assigned.number}/assignees`, { assignees: ['switchboard'] });
  const unassigned = await waitUntil(
    () => client.workflow.getHandle(byAssignment).query(unitStateQuery),
    (state) => state.outcome === 'stopped',
  );
  expect(unassigned.pullRequest).toBeUndefined();
  await waitUntil(
    async () => ours(assigned.number).some((c) => /stopped by github:bob: the issue was unassigned from Switchboard/.test(c.body)),
    Boolean,
  );

  // Closing an issue as not planned (by someone admitted to stop the unit, not the one who assigned it) stops its unit too.
  const closing = await as(ANA, 'POST', '/issues', { title: 'Take your time with the tax table', body: 'Maybe never.' });
  await as(ANA, 'POST', `/issues/${closing.number}/assignees`, { assignees: ['switchboard'] });
  const byClosing = await flows.runningUnitOf(flows.threadOf(closing.number));
  await as(BOB, 'PATCH', `/issues/${closing.number}`, { state: 'closed', state_reason: 'not_planned' });
  const closed = await waitUntil(
    () => client.workflow.getHandle(byClosing).query(unitStateQuery),
    (state) => state.outcome === 'stopped',
  );
  expect(closed.pullRequest).toBeUndefined();
  await waitUntil(
    async () => ours(closing.number).some((c) => /stopped by github:bob: the issue was closed as not planned/.test(c.body)),
    Boolean,
  );
  // The thread recorded one start each, and nothing else is running for them.
  for (const number of [labelled.number, assigned.number, closing.number]) {
    const thread = await client.workflow.getHandle(flows.threadOf(number)).query(threadStateQuery);
    expect(thread.outcomes.filter((outcome) => outcome.kind === 'unit')).toHaveLength(1);
  }
});

it('steers a unit at work on an issue with a reply, and `@switchboard stop` from a collaborator stops it', async () => {
  const { as, client, ours, item } = flows;
  const slow = await as(ANA, 'POST', '/issues', { title: 'Take your time with the tax table', body: 'No hurry.' });
  await as(ANA, 'POST', `/issues/${slow.number}/labels`, { labels: ['switchboard'] });
  const unitId = await flows.runningUnitOf(flows.threadOf(slow.number));
  await waitUntil(
    () => client.workflow.getHandle(unitId).query(unitStateQuery),
    (state) => state.currentRun !== undefined,
  );

  const steer = await as(ANA, 'POST', `/issues/${slow.number}/comments`, { body: '@switchboard keep the old signature too' });
  await waitUntil(
    async () =>
      item(slow.number)
        .comments.find((c) => c.id === steer.id)
        ?.reactions?.map((r) => r.content),
    (r) => Boolean(r?.includes('+1')),
  );
  const history = await client.workflow.getHandle(unitId).fetchHistory();
  const signals = (history.events ?? []).flatMap((event) =>
    event.workflowExecutionSignaledEventAttributes?.signalName ? [event.workflowExecutionSignaledEventAttributes.signalName] : [],
  );
  expect(signals).toContain('steer');

  // Bob did not ask for it, but the repository's collaborators admitted for ship own its conversation.
  await as(BOB, 'POST', `/issues/${slow.number}/comments`, { body: '@switchboard stop: the tax table moved to another repo' });
  const settled = await waitUntil(
    () => client.workflow.getHandle(unitId).query(unitStateQuery),
    (state) => state.outcome === 'stopped',
  );
  expect(settled.phase).toBe('settle');
  await waitUntil(
    async () => ours(slow.number).some((c) => /stopped by github:bob: the tax table moved to another repo/.test(c.body)),
    Boolean,
  );
});
