import { randomUUID } from 'node:crypto';
import { type Server } from 'node:http';
import express from 'express';
import { createGitHubIdentities } from '../activities/github';
import { createLogger } from '../infra/logger';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import { createGitHubWebhookRouter, runningUnitFor } from '../server/github-webhooks';
import { checksSignal, prEventSignal, shipUnitWorkflowType, unitStateQuery } from '../workflows/contracts';
import { freePort } from './helpers/ports';
import { githubDoorAdmission } from './helpers/github-admission';
import { startRunKit, type RunKit } from './helpers/run-kit';

jest.setTimeout(120_000);

const SECRET = 'unit-webhook-secret';
const MERGER = 'ghp_maintainer';

/**
 * A unit started from a request (`unit:<repo>:<slug>`) owns a PR whose events GitHub
 * addresses by number. Real signed deliveries from the local GitHub reach our Express app;
 * the router finds the unit through visibility and signals it.
 */
describe('webhooks for a PR owned by a slug unit', () => {
  let kit: RunKit;
  let github: LocalGitHub;
  let http: Server;
  // Its own repository name, so no other suite's unit on the shared server owns "PR #1" here.
  const repo = `hooks-${randomUUID().slice(0, 8)}/app`;

  beforeAll(async () => {
    const port = await freePort();
    github = await startLocalGitHub({
      tokens: { read: ['read-token'], write: ['write-token', MERGER] },
      logins: { [MERGER]: 'maintainer' },
      webhookUrl: `http://127.0.0.1:${port}/webhooks/github`,
      webhookSecret: SECRET,
    });
    const [owner, name] = repo.split('/');
    github.createRepo(owner, name, { 'README.md': '# app\n' });
    const identities = createGitHubIdentities({
      apiUrl: github.apiUrl,
      gitUrl: github.gitUrl,
      tokens: { read: 'read-token', write: 'write-token' },
    });
    // A long poll interval: only the webhook's signal can wake the unit from its CI wait within the test.
    kit = await startRunKit('unit-hooks', { github: identities, ship: { checksPollSeconds: 600 } });
    const app = express();
    app.use(
      '/webhooks/github',
      createGitHubWebhookRouter({
        client: kit.env.client,
        taskQueue: kit.taskQueue,
        secret: SECRET,
        botLogin: 'switchboard',
        logger: createLogger({ level: 'silent' }),
        admission: githubDoorAdmission(github, { read: 'read-token', write: 'write-token' }),
      }),
    );
    http = app.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    await kit?.close();
    await github?.close();
    http?.close();
  });

  it('wakes the unit from its CI wait on a check run, and settles it merged on the merge', async () => {
    const model = kit.script('hooks-model', [
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
              { name: 'bash', input: { command: 'echo "Hello" >> README.md' } },
              { name: 'submit_description', input: { title: 'Greet', body: 'Greets.' } },
            ],
          },
        ],
      },
      { text: 'done' },
    ]);
    const unitId = `unit:${repo}:greet`;
    const unit = await kit.env.client.workflow.start(shipUnitWorkflowType, {
      workflowId: unitId,
      taskQueue: kit.taskQueue,
      args: [
        { unitId, repo, request: 'Greet the reader', model, replyTarget: { kind: 'cli' }, requester: { id: 'tester', surface: 'cli' } },
      ],
    });
    const checking = await waitFor(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'checks' && state.nextTimer?.purpose === 'checks poll',
    );
    const number = checking.pullRequest!;

    // Visibility is eventually consistent: the PullRequest attribute the unit upserted when it
    // opened the PR is searchable a moment later. The router drops events in that window.
    await waitFor(
      () => runningUnitFor(kit.env.client, repo, number),
      (found) => found === unitId,
    );

    github.setCheckRun(repo, checking.headSha!, { name: 'ci', status: 'completed', conclusion: 'success' });
    await github.webhooks.settle();
    const checkDelivery = github.webhooks.deliveries.find((delivery) => delivery.event === 'check_run')!;
    expect(checkDelivery.status).toBe(202);
    const idle = await waitFor(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'idle',
      15_000,
    );
    expect(idle.checks).toMatchObject({ state: 'success', headSha: checking.headSha });
    expect(await signalNames(kit, unitId)).toContain(checksSignal.name);

    const merged = await fetch(`${github.apiUrl}/repos/${repo}/pulls/${number}/merge`, {
      method: 'PUT',
      headers: { authorization: `token ${MERGER}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(merged.status).toBe(200);
    const record = await unit.result();
    expect(record).toMatchObject({ outcome: 'merged', endedBy: 'the pull request was merged', pullRequest: number });
    await github.webhooks.settle();
    const closed = github.webhooks.deliveries.find(
      (delivery) => delivery.event === 'pull_request' && JSON.parse(delivery.body).action === 'closed',
    )!;
    expect(closed.status).toBe(202);
    expect(await signalNames(kit, unitId)).toContain(prEventSignal.name);
  });

  it('drops an event for a PR no running unit owns', async () => {
    const [owner, name] = repo.split('/');
    github.createRepo(owner, `${name}-other`, { 'README.md': '# other\n' });
    const sha = github.commit(`${repo}-other`, 'topic', { 'NOTES.md': 'hi\n' });
    const opened = await fetch(`${github.apiUrl}/repos/${repo}-other/pulls`, {
      method: 'POST',
      headers: { authorization: `token ${MERGER}`, 'content-type': 'application/json' },
      body: JSON.stringify({ head: 'topic', base: 'main', title: 'Not ours' }),
    });
    expect(opened.status).toBe(201);
    github.setCheckRun(`${repo}-other`, sha, { name: 'ci', status: 'completed', conclusion: 'success' });
    await github.webhooks.settle();
    const check = github.webhooks.deliveries.filter((delivery) => delivery.event === 'check_run').at(-1)!;
    expect(JSON.parse(check.body).check_run.pull_requests).toEqual([expect.objectContaining({ number: 1 })]);
    expect(check.status).toBe(202);
    expect(await runningUnitFor(kit.env.client, `${repo}-other`, 1)).toBeUndefined();
  });
});

async function signalNames(kit: RunKit, workflowId: string): Promise<string[]> {
  const history = await kit.env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) =>
    event.workflowExecutionSignaledEventAttributes ? [event.workflowExecutionSignaledEventAttributes.signalName ?? ''] : [],
  );
}

async function waitFor<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read().catch(() => last);
    if (last !== undefined && check(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`condition not met in time; last: ${JSON.stringify(last)}`);
}
