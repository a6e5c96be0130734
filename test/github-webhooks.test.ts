import { createHmac, randomUUID } from 'node:crypto';
import { type Server } from 'node:http';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import express from 'express';
import { createGitHubActivities, createGitHubIdentities } from '../activities/github';
import { createLogger } from '../infra/logger';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import { createGitHubWebhookRouter } from '../server/github-webhooks';
import { freePort } from './helpers/ports';
import { githubDoorAdmission } from './helpers/github-admission';
import { type DoorAdmission } from '../infra/door-admission';
import { sharedEnvironment, uniqueTaskQueue } from './helpers/temporal';
import { checksSignal, messageSignal, prEventSignal, shipUnitWorkflowType } from '../workflows/contracts';

const SECRET = 'webhook-secret-for-tests';
const ALICE = 'ghp_alice';
const BOT = 'ghp_bot';
const MALLORY = 'ghp_mallory';

let env: TestWorkflowEnvironment;
let client: Client;
let http: Server;
let url: string;
let github: LocalGitHub;
// Made once the local GitHub is up (the router is mounted before it, so its webhooks have somewhere to go).
let admission: DoorAdmission;
const taskQueue = uniqueTaskQueue('github-webhooks');
const started: string[] = [];

beforeAll(async () => {
  env = await sharedEnvironment();
  client = env.client;
  const app = express();
  app.use(
    '/webhooks/github',
    createGitHubWebhookRouter({
      client,
      taskQueue,
      secret: SECRET,
      botLogin: 'switchboard',
      logger: createLogger({ level: 'silent' }),
      maxBodyBytes: 64 * 1024,
      admission: {
        facts: () => admission.facts(),
        gate: { roleOf: (repo, login) => admission.gate.roleOf(repo, login), refuse: (target) => admission.gate.refuse(target) },
      },
    }),
  );
  const port = await freePort();
  http = app.listen(port, '127.0.0.1');
  url = `http://127.0.0.1:${port}/webhooks/github`;
  github = await startLocalGitHub({
    tokens: { read: [], write: [ALICE, BOT, MALLORY] },
    logins: { [ALICE]: 'alice', [MALLORY]: 'mallory' },
    webhookUrl: url,
    webhookSecret: SECRET,
  });
  admission = githubDoorAdmission(github, { read: BOT, write: BOT });
});

afterAll(async () => {
  for (const id of started)
    await client.workflow
      .getHandle(id)
      .terminate('test over')
      .catch(() => undefined);
  await github?.close();
  http?.close();
  await env?.teardown();
});

function repoName(): string {
  return `hooks-${randomUUID().slice(0, 8)}`;
}

async function exists(workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

async function signalsOf(workflowId: string): Promise<Array<{ name: string }>> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.workflowExecutionSignaledEventAttributes)
    .map((e) => ({ name: e.workflowExecutionSignaledEventAttributes!.signalName ?? '' }));
}

function mentionPayload(repo: string, number: number) {
  return {
    action: 'created',
    issue: { number, pull_request: { url: 'x' } },
    comment: { id: 1, body: '@switchboard please look', user: { login: 'alice' } },
    repository: { full_name: repo },
    sender: { login: 'alice' },
  };
}

function post(body: string, headers: Record<string, string>) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'issue_comment', 'x-github-delivery': randomUUID(), ...headers },
    body,
  });
}

const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

test('a bad or missing signature is 401 and no workflow is started', async () => {
  const repo = `acme/${repoName()}`;
  const body = JSON.stringify(mentionPayload(repo, 7));
  expect((await post(body, { 'x-hub-signature-256': sign(body, 'wrong-secret') })).status).toBe(401);
  expect((await post(body, {})).status).toBe(401);
  expect(await exists(`thread:gh:${repo}#7`)).toBe(false);
});

test('a signed empty body is a clear 400, not a bad signature', async () => {
  const empty = await post('', { 'x-hub-signature-256': sign('') });
  expect(empty.status).toBe(400);
  expect(await empty.json()).toEqual({ error: 'empty_body', reason: 'the signed body is empty' });
  expect((await post('', { 'x-hub-signature-256': sign('', 'wrong-secret') })).status).toBe(401);
});

test('malformed JSON with a valid signature is 400; an oversized body is 413', async () => {
  const broken = '{"action": "created",';
  expect((await post(broken, { 'x-hub-signature-256': sign(broken) })).status).toBe(400);
  const huge = JSON.stringify({ ...mentionPayload('acme/huge', 1), padding: 'x'.repeat(70 * 1024) });
  expect((await post(huge, { 'x-hub-signature-256': sign(huge) })).status).toBe(413);
  expect(await exists('thread:gh:acme/huge#1')).toBe(false);
});

test('a mention in a PR comment signal-with-starts its thread once, even when redelivered', async () => {
  const name = repoName();
  const repo = `acme/${name}`;
  github.createRepo('acme', name, { 'README.md': 'x\n' }, { collaborators: { alice: 'write' } });
  github.commit(repo, 'feature', { 'a.txt': 'a\n' });
  const identities = createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl, tokens: { write: ALICE } });
  const activities = createGitHubActivities({ identities });
  const pr = await activities.openOrUpdatePullRequest({
    repo,
    head: 'feature',
    base: 'main',
    title: 't',
    body: 'b',
    effectKey: `${name}/open/1`,
  });
  await activities.postComment({ repo, number: pr.number!, body: 'Hey @switchboard, review this please', effectKey: `${name}/comment/1` });
  await github.webhooks.settle();
  const threadId = `thread:gh:${repo}#${pr.number}`;
  started.push(threadId);
  const delivery = github.webhooks.deliveries.find((d) => d.event === 'issue_comment')!;
  expect(delivery.status).toBe(202);
  expect(await signalsOf(threadId)).toEqual([{ name: messageSignal.name }]);

  const again = await github.webhooks.redeliver(delivery.id);
  expect(again.status).toBe(202);
  expect(await signalsOf(threadId)).toEqual([{ name: messageSignal.name }]);
});

test('PR and check events reach the running unit; a PR without a unit signals nothing', async () => {
  const name = repoName();
  const repo = `acme/${name}`;
  github.createRepo('acme', name, { 'README.md': 'x\n' });
  const head = github.commit(repo, 'feature', { 'a.txt': 'a\n' });
  const unitId = `unit:${repo}#1`;
  // No worker serves this queue: the unit only has to be running to receive its signals.
  await client.workflow.start(shipUnitWorkflowType, {
    workflowId: unitId,
    taskQueue,
    args: [{ unitId, repo, replyTarget: { kind: 'cli' }, requester: { id: 'tester', surface: 'cli' } }],
  });
  started.push(unitId);
  const identities = createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl, tokens: { write: BOT } });
  const activities = createGitHubActivities({ identities });
  await activities.openOrUpdatePullRequest({ repo, head: 'feature', base: 'main', title: 't', body: 'b', effectKey: `${name}/open/1` });
  await github.webhooks.settle();
  const checkRun = {
    action: 'completed',
    check_run: { name: 'ci', head_sha: head, conclusion: 'success', pull_requests: [{ number: 1 }] },
    repository: { full_name: repo },
  };
  expect((await github.webhooks.deliver('check_run', checkRun)).status).toBe(202);
  expect(await signalsOf(unitId)).toEqual([{ name: prEventSignal.name }, { name: checksSignal.name }]);

  const other = repoName();
  const orphan = await github.webhooks.deliver('pull_request', {
    action: 'opened',
    number: 3,
    pull_request: { number: 3, head: { sha: head } },
    repository: { full_name: `acme/${other}` },
  });
  expect(orphan.status).toBe(202);
  expect(await exists(`unit:acme/${other}#3`)).toBe(false);
});

test("a stranger's signed mention (author_association NONE, no role) starts nothing and gets one 👎; a redelivery adds none", async () => {
  const name = repoName();
  const repo = `acme/${name}`;
  github.createRepo('acme', name, { 'README.md': 'x\n' }, { collaborators: { alice: 'write' } });
  github.commit(repo, 'feature', { 'a.txt': 'a\n' });
  const as = (token: string) =>
    createGitHubActivities({
      identities: createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl, tokens: { write: token } }),
    });
  const pr = await as(ALICE).openOrUpdatePullRequest({
    repo,
    head: 'feature',
    base: 'main',
    title: 't',
    body: 'b',
    effectKey: `${name}/o`,
  });
  for (const [index, ask] of ['agent:coding delete the tests', 'agent:general what is this?'].entries()) {
    const before = github.webhooks.deliveries.length;
    const comment = await as(MALLORY).postComment({
      repo,
      number: pr.number!,
      body: `@switchboard ${ask}`,
      effectKey: `${name}/m${index}`,
    });
    await github.webhooks.settle();
    const delivery = github.webhooks.deliveries.slice(before).find((d) => d.event === 'issue_comment')!;
    expect(JSON.parse(delivery.body)).toMatchObject({ comment: { author_association: 'NONE' } });
    expect(delivery.status).toBe(202);
    await github.webhooks.redeliver(delivery.id);
    const reactions = github.state
      .repo('acme', name)!
      .issues.get(pr.number!)!
      .comments.find((c) => c.id === comment.id)!.reactions;
    expect(reactions?.map((reaction) => [reaction.content, reaction.user])).toEqual([['-1', 'switchboard[bot]']]);
  }
  expect(await exists(`thread:gh:${repo}#${pr.number}`)).toBe(false);
  expect(github.state.countWrites('comment.create', repo)).toBe(2); // mallory's two; no reply of ours
  // The gate asked GitHub, not the payload's author_association.
  expect(github.state.requests.filter((request) => request.path.endsWith('/collaborators/mallory/permission')).length).toBeGreaterThan(0);
});

test("a person's review reaches the unit only from someone admitted for ship (write by default)", async () => {
  const name = repoName();
  const repo = `acme/${name}`;
  github.createRepo('acme', name, { 'README.md': 'x\n' }, { collaborators: { alice: 'write', mallory: 'triage' } });
  const unitId = `unit:${repo}#1`;
  await client.workflow.start(shipUnitWorkflowType, {
    workflowId: unitId,
    taskQueue,
    args: [{ unitId, repo, replyTarget: { kind: 'cli' }, requester: { id: 'tester', surface: 'cli' } }],
  });
  started.push(unitId);
  const review = (login: string) => ({
    action: 'submitted',
    pull_request: { number: 1, head: { sha: 'a'.repeat(40) } },
    review: { id: 7, state: 'CHANGES_REQUESTED', commit_id: 'a'.repeat(40), user: { login } },
    repository: { full_name: repo },
    sender: { login },
  });
  expect((await github.webhooks.deliver('pull_request_review', review('mallory'))).status).toBe(202);
  expect(await signalsOf(unitId)).toEqual([]);
  expect((await github.webhooks.deliver('pull_request_review', review('alice'))).status).toBe(202);
  expect(await signalsOf(unitId)).toEqual([{ name: prEventSignal.name }]);
});
