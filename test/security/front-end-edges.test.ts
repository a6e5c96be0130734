import { randomUUID } from 'node:crypto';
import { type Server } from 'node:http';
import { Writable } from 'node:stream';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { createLogger } from '../../infra/logger';
import { startLocalGitHub, type LocalGitHub } from '../../emulators/local-github';
import { createServerApp } from '../../server/app';
import { createGitHubWebhookRouter } from '../../server/github-webhooks';
import { githubDoorAdmission } from '../helpers/github-admission';
import { freePort } from '../helpers/ports';
import { BOT, startSlackKit, type SlackKit } from '../helpers/slack-kit';
import { sharedEnvironment, uniqueTaskQueue } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

jest.setTimeout(60_000);

async function exists(client: Client, workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

describe('Slack requests dated outside five minutes', () => {
  const CHANNEL = 'C0EDGES';
  let kit: SlackKit;
  beforeAll(async () => {
    kit = await startSlackKit('front-end-edges');
  });
  afterAll(async () => {
    await kit?.close();
  });

  const now = () => Math.floor(Date.now() / 1000);
  async function mention(timestamp?: number) {
    const said = await kit.slack.userSays(
      { channel: CHANNEL, user: 'U0ALICE', text: `<@${BOT}> model:scripted:${kit.script('edges', [{ text: 'Answered.' }])} hi` },
      timestamp === undefined ? {} : { timestamp },
    );
    return {
      threadId: `thread:slack:T0LOCAL:${CHANNEL}:${said.message.ts}`,
      statuses: said.deliveries.map((entry) => entry.result.status),
    };
  }

  it.each([
    ['10 minutes in the future', 600],
    ['a day in the future', 86_400],
    ['10 minutes in the past', -600],
  ])('%s: 401, and nothing is signalled', async (_when, skew) => {
    const { threadId, statuses } = await mention(now() + skew);
    expect(statuses).toEqual([401, 401]);
    expect(await exists(kit.env.client, threadId)).toBe(false);
  });

  it('now and within the five minutes either way: accepted, the thread starts', async () => {
    for (const skew of [0, 240, -240]) {
      const { threadId, statuses } = await mention(now() + skew);
      expect(statuses).toEqual([200, 200]);
      await kit.until(() => exists(kit.env.client, threadId), `thread ${threadId}`);
    }
  });

  it('events whose ids are not Slack-shaped are acknowledged and ignored, never part of a workflow id', async () => {
    const odd = [`C0${'X'.repeat(1200)}`, 'C0:EVIL'];
    for (const channel of odd) {
      const { result } = await kit.slack.events!.sendEvent({
        type: 'app_mention',
        channel,
        user: 'U0ALICE',
        text: `<@${BOT}> hi`,
        ts: '1.000001',
      });
      expect(result.status).toBe(200);
    }
    // Handled in order: once a later, valid mention has its thread, the odd ones are long decided.
    const { threadId } = await mention();
    const ids = await waitUntil(
      async () => {
        const found: string[] = [];
        for await (const execution of kit.env.client.workflow.list({ query: `TaskQueue = "${kit.taskQueue}"` }))
          found.push(execution.workflowId);
        return found;
      },
      (found) => found.includes(threadId),
    );
    expect(ids.filter((id) => id.includes('EVIL') || id.includes('XXXXXXXX'))).toEqual([]);
  });
});

describe('GitHub webhook values that would become workflow ids', () => {
  const SECRET = 'edges-webhook-secret';
  const taskQueue = uniqueTaskQueue('edges-webhooks');
  const lines: string[] = [];
  let client: Client;
  let github: LocalGitHub;
  let http: Server;
  const started: string[] = [];

  beforeAll(async () => {
    client = (await sharedEnvironment()).client;
    const port = await freePort();
    github = await startLocalGitHub({
      tokens: { read: ['edges-read'], write: [] },
      webhookUrl: `http://127.0.0.1:${port}/webhooks/github`,
      webhookSecret: SECRET,
    });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const logger = createLogger({ level: 'info', format: 'json', destination: sink });
    const admission = githubDoorAdmission(github, { read: 'edges-read' });
    const router = createGitHubWebhookRouter({ client, taskQueue, secret: SECRET, botLogin: 'switchboard', logger, admission });
    // The server app as the product mounts it; no worker is needed to see what is started.
    const app = createServerApp({
      client,
      logger,
      mounts: [{ path: '/webhooks/github', handler: router }],
      health: { namespace: 'default', taskQueue, pingTemporal: async () => undefined, workerState: () => undefined },
    });
    http = app.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    for (const id of started)
      await client.workflow
        .getHandle(id)
        .terminate('test over')
        .catch(() => undefined);
    await github?.close();
    http?.close();
  });

  const mention = (fullName: unknown, number: unknown) => ({
    action: 'created',
    issue: { number, pull_request: { url: 'x' } },
    comment: { id: 1, body: '@switchboard please look', user: { login: 'alice' } },
    repository: { full_name: fullName },
    sender: { login: 'alice' },
  });
  const longName = `acme/${'x'.repeat(1197)}`;

  it.each([
    ['a 1,202-character full_name', 'issue_comment', mention(longName, 7), 'repository.full_name'],
    ['issue number 1e300', 'issue_comment', mention('acme/app', 1e300), 'issue.number'],
    ['issue number 2.5', 'issue_comment', mention('acme/app', 2.5), 'issue.number'],
    ['issue number -1', 'issue_comment', mention('acme/app', -1), 'issue.number'],
    ['issue number 0', 'issue_comment', mention('acme/app', 0), 'issue.number'],
    [
      'a PR event numbered 1e300',
      'pull_request',
      {
        action: 'opened',
        number: 1e300,
        pull_request: { number: 1e300, head: { sha: 'a'.repeat(40) } },
        repository: { full_name: 'acme/app' },
      },
      'number',
    ],
  ])('%s: signed, answered 400 with the reason, logged in one line without a stack', async (_what, event, payload, field) => {
    const before = lines.length;
    const delivery = await github.webhooks.deliver(event, payload);
    expect(delivery.status).toBe(400);
    const logged = lines.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toEqual([
      expect.objectContaining({ level: 40, msg: 'GitHub webhook refused: malformed payload', deliveryId: delivery.id, event }),
    ]);
    expect(String(logged[0].reason)).toContain(field);
    expect(lines.slice(before).join('\n')).not.toMatch(/"stack"|\n\s+at /);
  });

  it('none of them started or signalled a workflow; a valid mention on the same server does', async () => {
    const repo = `acme/edges-${randomUUID().slice(0, 8)}`;
    github.createRepo('acme', repo.split('/')[1], { 'README.md': 'x\n' }, { collaborators: { alice: 'write' } });
    const delivery = await github.webhooks.deliver('issue_comment', mention(repo, 7));
    expect(delivery.status).toBe(202);
    started.push(`thread:gh:${repo}#7`);
    // Once the valid one is visible, it is the only workflow on this server's task queue.
    const ids = await waitUntil(
      async () => {
        const found: string[] = [];
        for await (const execution of client.workflow.list({ query: `TaskQueue = "${taskQueue}"` })) found.push(execution.workflowId);
        return found;
      },
      (found) => found.includes(`thread:gh:${repo}#7`),
    );
    expect(ids).toEqual([`thread:gh:${repo}#7`]);
    expect(lines.some((line) => line.includes('"level":50'))).toBe(false);
  });
});
