import { randomUUID } from 'node:crypto';
import { type Server } from 'node:http';
import express from 'express';
import { createGitHubActivities, createGitHubIdentities } from '../activities/github';
import { createLogger } from '../infra/logger';
import { branchHeads } from '../emulators/local-github/git-store';
import { createGitHubWebhookRouter } from '../server/github-webhooks';
import { prEventSignal, steerSignal, stopSignal, unitStateQuery } from '../workflows/contracts';
import { freePort } from './helpers/ports';
import { githubDoorAdmission } from './helpers/github-admission';
import { startShipKit, type ShipKit } from './helpers/ship-kit';
import { waitUntil } from './helpers/wait';

jest.setTimeout(180_000);

const SECRET = 'exact-pr-secret';

/**
 * Issue 11's exact-PR case: `unit:<repo>#1` on a PR whose head is `feature`. A steer makes a
 * coding round that pushes to `feature` itself (no fork of it), and every commit gets one
 * review, also when GitHub delivers the push's `synchronize` again.
 */
describe('an exact-PR unit', () => {
  let ship: ShipKit;
  let http: Server;
  // Its own repository, so no other suite's unit on the shared server is `unit:<repo>#1`.
  const repo = `exact-${randomUUID().slice(0, 8)}/app`;

  beforeAll(async () => {
    const port = await freePort();
    // No CI in this repository: a short poll settles the empty checks quickly.
    ship = await startShipKit('exact-pr', {
      ship: { checksPollSeconds: 2 },
      webhooks: { url: `http://127.0.0.1:${port}/webhooks/github`, secret: SECRET },
    });
    const app = express();
    app.use(
      '/webhooks/github',
      createGitHubWebhookRouter({
        client: ship.kit.env.client,
        taskQueue: ship.kit.taskQueue,
        secret: SECRET,
        botLogin: 'switchboard',
        logger: createLogger({ level: 'silent' }),
        admission: githubDoorAdmission(ship.github, { read: 'read-token', write: 'write-token' }),
      }),
    );
    http = app.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    await ship?.close();
    http?.close();
  });

  it('pushes the steered round to the PR branch and reviews each commit once', async () => {
    const [owner, name] = repo.split('/');
    ship.github.createRepo(owner, name, { 'README.md': '# app\n' });
    const first = ship.github.commit(repo, 'feature', { 'feature.txt': 'one\n' });
    const person = createGitHubActivities({
      identities: createGitHubIdentities({ apiUrl: ship.github.apiUrl, gitUrl: ship.github.gitUrl, tokens: { write: 'write-token' } }),
    });
    const opened = await person.openOrUpdatePullRequest({
      repo,
      head: 'feature',
      base: 'main',
      title: 'Feature',
      body: 'Theirs.',
      effectKey: 'p',
    });
    const model = ship.model([
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Good.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Fine.', findings: [] } }],
          },
          {
            text: 'Changing.',
            toolCalls: [
              { name: 'bash', input: { command: 'echo two >> feature.txt' } },
              { name: 'submit_description', input: { title: 'Ours', body: 'Not for a person’s PR.' } },
            ],
          },
        ],
      },
      { text: 'done' },
    ]);
    const unitId = `unit:${repo}#${opened.number}`;
    const unit = await ship.start({ unitId, repo, pullRequest: opened.number, request: 'Keep the feature tidy', model });
    await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'idle' && state.lastReview?.commitSha === first,
    );

    await unit.signal(steerSignal, { text: 'Add a second line', by: 'alice' });
    const steered = await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'idle' && state.round === 1 && state.headSha !== first,
    );
    const heads = () => branchHeads(ship.github.state.repo(owner, name)!.dir);
    const second = heads().get('feature')!;
    expect(steered).toMatchObject({ branch: 'feature', headSha: second, lastReview: { commitSha: second, posted: 'confirmed' } });
    expect([...heads().keys()].sort()).toEqual(['feature', 'main']); // no branch forked off the PR
    const pull = () => ship.github.state.repo(owner, name)!.issues.get(opened.number!)!;
    expect(pull()).toMatchObject({ title: 'Feature', body: expect.stringContaining('Theirs.') });
    const reviewed = () => pull().reviews.map((review) => review.commitId);
    expect(reviewed()).toEqual([first, second]);
    expect(pull().reviews[1].body).toContain(`<!-- switchboard-effect: ${unitId}/review/${second} -->`);

    // GitHub delivers the round's push again: by "Redeliver" (same id) and as a fresh delivery.
    const pushed = ship.github.webhooks.deliveries.find(
      (delivery) => delivery.event === 'pull_request' && delivery.body.includes('"synchronize"') && delivery.body.includes(second),
    )!;
    expect(pushed).toBeDefined();
    const signalled = await prEventsHandled();
    await ship.github.webhooks.redeliver(pushed.id);
    await ship.github.webhooks.deliver('pull_request', JSON.parse(pushed.body) as object);
    await waitUntil(prEventsHandled, (handled) => handled > signalled);
    expect(await unit.query(unitStateQuery)).toMatchObject({ phase: 'idle', headSha: second });
    await unit.signal(stopSignal, { reason: 'test done' });
    expect(await unit.result()).toMatchObject({ outcome: 'stopped', rounds: 1, reviews: 2 });
    expect(reviewed()).toEqual([first, second]);

    /** `prEvent` signals the unit has taken and finished a workflow task after. */
    async function prEventsHandled(): Promise<number> {
      const events = (await unit.fetchHistory()).events ?? [];
      let signals = 0;
      let handled = 0;
      for (const event of events) {
        if (event.workflowExecutionSignaledEventAttributes?.signalName === prEventSignal.name) signals += 1;
        if (event.workflowTaskCompletedEventAttributes) handled = signals;
      }
      return handled;
    }
  });
});
