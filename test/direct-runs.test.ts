import { createGitHubActivities, createGitHubIdentities } from '../activities/github';
import { tryGit } from '../emulators/local-github/git-store';
import { REPO, startShipKit, type ShipKit } from './helpers/ship-kit';

jest.setTimeout(180_000);

/**
 * Issue 11's direct doors: `agent:review` and `agent:coding` asked outside a ship unit, on the
 * real server, the real sandbox and git, against the local GitHub. The review sees the PR head
 * in its workspace and is posted once on that commit; the coding run's change becomes a draft
 * PR that the answer links.
 */
describe('direct review and coding runs', () => {
  let ship: ShipKit;
  let prNumber: number;
  let prHead: string;
  beforeAll(async () => {
    ship = await startShipKit('direct-runs');
    prHead = ship.github.commit(REPO, 'feature', { 'feature.txt': 'from the feature branch\n' });
    const person = createGitHubActivities({
      identities: createGitHubIdentities({ apiUrl: ship.github.apiUrl, gitUrl: ship.github.gitUrl, tokens: { write: 'write-token' } }),
    });
    const pr = await person.openOrUpdatePullRequest({
      repo: REPO,
      head: 'feature',
      base: 'main',
      title: 'Feature',
      body: 'f',
      effectKey: 'p',
    });
    prNumber = pr.number!;
  });
  afterAll(async () => ship?.close());
  const fileOn = (branch: string, path: string) => tryGit(ship.github.state.repo('acme', 'app')!.dir, ['show', `${branch}:${path}`]);

  it('reviews the PR head it checked out and posts one review on that commit', async () => {
    const finding = {
      severity: 'minor',
      path: 'feature.txt',
      line: 1,
      title: 'No final period',
      scenario: 'The line ends without punctuation.',
      impact: 'It reads oddly.',
    };
    const review = { verdict: 'request_changes', summary: 'Adds feature.txt.', findings: [finding] };
    const model = ship.kit.script('direct-review', [
      { text: 'Reading.', toolCalls: [{ name: 'bash', input: { command: 'cat feature.txt; git rev-parse HEAD' } }] },
      {
        alternatives: [
          // Only a workspace that holds the PR head has this file at this commit.
          { when: { lastToolResultIncludes: prHead }, text: 'Submitting.', toolCalls: [{ name: 'submit_review', input: review }] },
          { text: 'The workspace does not hold the PR head.' },
        ],
      },
      // A second submission must not become a second review.
      { text: 'Again.', toolCalls: [{ name: 'submit_review', input: review }] },
      { text: 'Reviewed.' },
    ]);
    const { runId } = await ship.kit.start(`in ${REPO}: review #${prNumber}`, { agent: 'review', model });
    const record = await ship.kit.result(runId);

    expect(record.outcome).toBe('completed');
    const pull = ship.github.state.repo('acme', 'app')!.issues.get(prNumber)!;
    expect(pull.reviews).toHaveLength(1);
    const [posted] = pull.reviews;
    expect(posted.commitId).toBe(prHead);
    expect(posted.body).toContain('**Verdict: changes requested** (1 at or above `minor`)');
    expect(posted.body).toContain(`<!-- switchboard-effect: ${runId}/review/${prHead} -->`);
    expect(record.finalText).toMatch(
      new RegExp(`^Reviewed\\.\\n\\nDelivered change-requesting review of #${prNumber} on commit ${prHead.slice(0, 12)}: http`),
    );
    // The second call was refused as data, not posted.
    expect(record.toolCalls.filter((call) => call.name === 'submit_review').map((call) => call.ok)).toEqual([true, false]);
  });

  it('pushes the coding run’s change to a new branch and opens a draft PR that the answer links', async () => {
    const model = ship.kit.script('direct-coding', [
      {
        text: 'Changing.',
        toolCalls: [
          {
            name: 'bash',
            input: {
              command:
                'echo "## Changes" > CHANGELOG.md && git add CHANGELOG.md && git -c user.name=c -c user.email=c@x commit -qm changelog',
            },
          },
          {
            name: 'submit_description',
            input: { title: 'Add a changelog', body: 'Starts CHANGELOG.md.', testing: ['cat CHANGELOG.md: ok'] },
          },
        ],
      },
      { text: 'Done.' },
    ]);
    const { runId } = await ship.kit.start(`in ${REPO}: start a changelog`, { agent: 'coding', model });
    const record = await ship.kit.result(runId);

    expect(record.outcome).toBe('completed');
    const repo = ship.github.state.repo('acme', 'app')!;
    const opened = [...repo.issues.values()].filter((issue) => issue.pull && issue.number !== prNumber);
    expect(opened).toHaveLength(1);
    const [pr] = opened;
    expect(pr.title).toBe('Add a changelog');
    expect(pr.pull).toMatchObject({ draft: true, base: 'main' });
    expect(pr.pull!.head).toMatch(/^switchboard\//);
    expect(pr.body).toContain('- cat CHANGELOG.md: ok');
    expect(fileOn(pr.pull!.head, 'CHANGELOG.md')).toBe('## Changes\n');
    expect(record.finalText).toMatch(
      new RegExp(`^Done\\.\\n\\nDelivered draft pull request #${pr.number} from ${pr.pull!.head}: http\\S+/pull/${pr.number}$`),
    );
    // The PR the run was not asked from is untouched.
    expect(tryGit(ship.github.state.repo('acme', 'app')!.dir, ['ls-tree', '--name-only', 'feature', 'CHANGELOG.md'])).toBe('');
  });
});
