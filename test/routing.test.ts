import { createGitHubActivities, createGitHubIdentities } from '../activities/github';
import { sendToThread } from '../infra/thread-client';
import { runStatusQuery, type ThreadMessage } from '../workflows/contracts';
import { REPO, startShipKit, type ShipKit } from './helpers/ship-kit';

jest.setTimeout(180_000);

/**
 * Routing that finds agents, on the real product: "review this PR" asked on a pull request runs
 * `review` (the rule), with the choice and its reason on the PR's status card; a message no rule
 * places is routed by the classifier's model turn, which the run counts in its usage. The models
 * are the entries' own (`agents.entries.<id>.model`), as a deployment would set them.
 */
describe('routing finds agents', () => {
  let ship: ShipKit;
  let prNumber: number;
  const script = (name: string) => `scripted:kit/${name}.yaml`;

  beforeAll(async () => {
    ship = await startShipKit('routing', {
      agents: {
        entries: { review: { model: script('route-review') }, research: { model: script('route-research') } },
        routing: { classifier: { enabled: true, model: script('route-classifier') } },
      },
    });
    ship.github.commit(REPO, 'feature', { 'feature.txt': 'a feature\n' });
    const person = createGitHubActivities({
      identities: createGitHubIdentities({ apiUrl: ship.github.apiUrl, gitUrl: ship.github.gitUrl, tokens: { write: 'write-token' } }),
    });
    prNumber = (
      await person.openOrUpdatePullRequest({ repo: REPO, head: 'feature', base: 'main', title: 'Feature', body: 'f', effectKey: 'p' })
    ).number!;
    ship.kit.script('route-review', [
      {
        text: 'Looks right.',
        toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Adds feature.txt.', findings: [] } }],
      },
      { text: 'Reviewed.' },
    ]);
    ship.kit.script('route-classifier', [{ text: '{"agent": "research", "why": "it asks what the web knows"}' }]);
    ship.kit.script('route-research', [{ text: 'Here is what the sources say.' }]);
  });
  afterAll(async () => ship?.close());

  const send = async (threadId: string, message: ThreadMessage) =>
    sendToThread(ship.kit.client, ship.kit.taskQueue, {
      threadId,
      input: { threadId, replyTarget: message.replyTarget ?? { kind: 'cli' } },
      message,
      summary: 'routing test',
    });

  it('runs review for "review this PR" on a pull request, and says why on the card', async () => {
    const replyTarget = { kind: 'github' as const, repo: REPO, pullRequest: prNumber };
    const outcome = await send(`thread:gh:${REPO}#${prNumber}`, {
      messageId: `gh:${prNumber}:1`,
      text: 'review this PR',
      requester: { id: 'github:alice', surface: 'github', githubRole: 'write' },
      replyTarget,
    });
    expect(outcome).toMatchObject({ kind: 'run', agent: 'review' });
    const record = await ship.kit.result(outcome!.runId!);
    expect(record).toMatchObject({ outcome: 'completed', profile: { agent: 'review', model: { chosenBy: 'entry' } } });
    const status = await ship.kit.client.workflow.getHandle(record.runId).query(runStatusQuery);
    expect(status.routing).toEqual({ agent: 'review', reason: 'review-request', note: 'a review request on a pull request' });
    const pull = ship.github.state.repo('acme', 'app')!.issues.get(prNumber)!;
    expect(pull.reviews).toHaveLength(1);
    expect(pull.comments.map((comment) => comment.body).join('\n')).toContain(
      'Routed to review: a review request on a pull request (rule review-request)',
    );
  });

  it('asks the classifier when no rule places a message, and counts its turn in the run', async () => {
    const outcome = await send(`thread:cli:routing-${process.pid}`, {
      messageId: `cli:${process.pid}:classify`,
      text: 'what do people say about the tradeoffs between them',
      requester: { id: 'tester', surface: 'cli' },
    });
    expect(outcome).toMatchObject({ kind: 'run', agent: 'research' });
    const record = await ship.kit.result(outcome!.runId!);
    expect(record.outcome).toBe('completed');
    expect(record.usage[0]).toMatchObject({ purpose: 'routing', turn: 0, model: expect.stringContaining('route-classifier') });
    expect(record.usage.filter((entry) => entry.purpose === undefined)).toHaveLength(1);
    const status = await ship.kit.client.workflow.getHandle(record.runId).query(runStatusQuery);
    expect(status.routing).toEqual({ agent: 'research', reason: 'classifier', note: 'it asks what the web knows' });
  });
});
