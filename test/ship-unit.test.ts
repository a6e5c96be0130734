import { checksSignal, prEventSignal, unitStateQuery } from '../workflows/contracts';
import { REPO, startShipKit, type ShipKit } from './helpers/ship-kit';
import { waitUntil } from './helpers/wait';

jest.setTimeout(240_000);

/** One script for the unit's coding and review runs; the request text picks the turn. */
function lifetimeScript(kit: ShipKit): string {
  const finding = {
    severity: 'minor',
    path: 'README.md',
    line: 1,
    title: 'The heading lost its greeting',
    scenario: 'A reader opens the README and finds no greeting.',
    impact: 'The change does not do what was asked.',
  };
  return kit.model([
    {
      alternatives: [
        {
          when: { lastUserIncludes: '(review 1 of this unit)' },
          text: 'One finding.',
          toolCalls: [
            {
              name: 'submit_review',
              input: { verdict: 'request_changes', summary: 'Adds a greeting; one bounded defect.', findings: [finding] },
            },
          ],
        },
        {
          when: { lastUserIncludes: 'of this unit)' },
          text: 'Looks right.',
          toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'The change does what it says.', findings: [] } }],
        },
        {
          when: { lastUserIncludes: 'The review asks' },
          text: 'Fixing the finding.',
          toolCalls: [
            { name: 'bash', input: { command: 'echo "Hello, reader." >> README.md && git add -A && git commit -qm "Greet the reader"' } },
          ],
        },
        {
          when: { lastUserIncludes: 'CI failed' },
          text: 'Fixing CI.',
          toolCalls: [{ name: 'bash', input: { command: 'echo "// checked" >> src/sum.js' } }],
        },
        {
          text: 'Adding the greeting.',
          toolCalls: [
            { name: 'bash', input: { command: 'echo "Hello." >> README.md' } },
            { name: 'submit_description', input: { title: 'Add a greeting to the README', body: 'Adds a greeting line.' } },
          ],
        },
      ],
    },
    { text: 'Done: {{lastToolResult}}' },
  ]);
}

describe('shipUnitWorkflow on the real server against the local GitHub', () => {
  let ship: ShipKit;
  beforeAll(async () => {
    ship = await startShipKit('ship-life');
  });
  afterAll(async () => {
    await ship.close();
  });

  it('carries a request to a merged PR: finding, fix, approval, failing CI, fix, green, idle, merged', async () => {
    const model = lifetimeScript(ship);
    const unit = await ship.start({ unitId: `unit:${REPO}:add-greeting`, request: 'Add a greeting to the README', model });
    const query = () => unit.query(unitStateQuery);

    const checking = await waitUntil(query, (state) => state.phase === 'checks' && state.round === 2);
    expect(checking.lastReview).toMatchObject({ verdict: 'approve', posted: 'confirmed' });
    ship.github.setCheckRun(REPO, checking.headSha!, { name: 'ci', status: 'completed', conclusion: 'failure' });
    await unit.signal(checksSignal, {
      repo: REPO,
      number: checking.pullRequest!,
      headSha: checking.headSha!,
      source: 'check_run',
      name: 'ci',
      conclusion: 'failure',
    });

    const green = await waitUntil(query, (state) => state.phase === 'checks' && state.round === 3);
    expect(green.headSha).not.toBe(checking.headSha);
    ship.github.setCheckRun(REPO, green.headSha!, { name: 'ci', status: 'completed', conclusion: 'success' });
    await unit.signal(checksSignal, {
      repo: REPO,
      number: green.pullRequest!,
      headSha: green.headSha!,
      source: 'check_run',
      name: 'ci',
      conclusion: 'success',
    });

    const idle = await waitUntil(query, (state) => state.phase === 'idle');
    expect(idle.checks).toMatchObject({ state: 'success' });
    await unit.signal(prEventSignal, {
      repo: REPO,
      number: idle.pullRequest!,
      kind: 'merged',
      headSha: idle.headSha,
      deliveryId: 'd-merged',
    });

    const record = await unit.result();
    expect(record).toMatchObject({ outcome: 'merged', rounds: 3, reviews: 3, pullRequest: idle.pullRequest });
    const { state } = ship.github;
    expect(state.countWrites('pull_request.create', REPO)).toBe(1);
    const pull = state.repo('acme', 'app')!.issues.get(idle.pullRequest!)!;
    const reviewedCommits = pull.reviews.map((review) => review.commitId);
    expect(reviewedCommits).toHaveLength(3);
    expect(new Set(reviewedCommits).size).toBe(3);
    expect(pull.reviews[0].body).toContain('Verdict: changes requested');
    expect(pull.reviews[2].body).toContain('Verdict: approve');
    expect(pull.comments.filter((comment) => comment.body.includes(`Ship unit unit:${REPO}:add-greeting merged`))).toHaveLength(1);
    expect(pull.pull).toMatchObject({ head: 'switchboard/acme/app-add-greeting', merged: false });
  });
});
