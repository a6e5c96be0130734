import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { stringify } from 'yaml';
import { createGitHubActivities, createGitHubIdentities } from '../../activities/github';
import { createLogger } from '../../infra/logger';
import { startLocalGitHub, type LocalGitHub } from '../../emulators/local-github';
import { createServerApp } from '../../server/app';
import { createGitHubWebhookRouter } from '../../server/github-webhooks';
import { githubDoorAdmission } from '../helpers/github-admission';
import { threadStateQuery, type MessageOutcome } from '../../workflows/contracts';
import { freePort } from '../helpers/ports';
import { startRunKit, type RunKit } from '../helpers/run-kit';
import { BOT, startSlackKit, type SlackKit } from '../helpers/slack-kit';
import { waitUntil } from '../helpers/wait';

jest.setTimeout(90_000);

// A script outside every scripted directory whose only answer is the canary: if any path below
// were followed, the canary would be the run's answer. The test proves it never appears.
const CANARY = `canary-${randomUUID()}`;
const CHANNEL = 'C0MODELS';
const ALICE = 'U0ALICE';

let outside: string;
let canary: string;
beforeAll(() => {
  outside = mkdtempSync(join(tmpdir(), 'switchboard-canary-'));
  canary = join(outside, 'canary.yaml');
  writeFileSync(canary, stringify({ turns: [{ text: CANARY }] }));
});
afterAll(() => rmSync(outside, { recursive: true, force: true }));

describe('a model: directive from Slack', () => {
  let kit: SlackKit;
  beforeAll(async () => {
    // The operator allows the kit's own scripts (models.allowed: [scripted:kit/*]), nothing else.
    kit = await startSlackKit('model-choice');
  });
  afterAll(async () => {
    await kit?.close();
  });

  /** Mentions the bot and returns what the thread did with the message, and everything posted in the thread. */
  async function ask(text: string): Promise<{ outcome: MessageOutcome; posted: () => string }> {
    const said = await kit.slack.userSays({ channel: CHANNEL, user: ALICE, text: `<@${BOT}> ${text}` });
    const delivery = said.deliveries.find((entry) => (entry.envelope.event as { type: string }).type === 'app_mention')!;
    expect(delivery.result.status).toBe(200);
    const threadId = `thread:slack:T0LOCAL:${CHANNEL}:${said.message.ts}`;
    const outcome = await kit.until(async () => {
      const state = await kit.threadState(threadId).catch((error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return undefined;
        throw error;
      });
      return state?.outcomes.find((entry) => entry.messageId === delivery.envelope.event_id);
    }, `the thread's decision on "${text}"`);
    const posted = () =>
      kit.slack.state
        .thread(CHANNEL, said.message.ts)
        .filter((message) => message.user !== ALICE)
        .map((message) => `${message.text ?? ''} ${JSON.stringify(message.blocks ?? [])}`)
        .join('\n');
    if (outcome.kind === 'refused') await kit.until(() => posted().includes(outcome.reply!), 'the refusal in the thread');
    return { outcome, posted };
  }

  /**
   * Mentions the bot with a model the door refuses (issue 32: a model nobody may have is refused
   * before a thread exists): the person alone is told, in the thread, and no thread workflow starts.
   */
  async function refusedAtDoor(text: string): Promise<{ told: string; threadId: string; posted: () => string }> {
    const said = await kit.slack.userSays({ channel: CHANNEL, user: ALICE, text: `<@${BOT}> ${text}` });
    expect(said.deliveries.every((delivery) => delivery.result.status === 200)).toBe(true);
    const told = await kit.until(
      async () => kit.slack.state.ephemerals.find((message) => message.user === ALICE && message.threadTs === said.message.ts)?.text,
      `the door's answer to "${text}"`,
    );
    const posted = () =>
      kit.slack.state
        .thread(CHANNEL, said.message.ts)
        .filter((message) => message.user !== ALICE)
        .map((message) => `${message.text ?? ''} ${JSON.stringify(message.blocks ?? [])}`)
        .join('\n');
    return { told, threadId: `thread:slack:T0LOCAL:${CHANNEL}:${said.message.ts}`, posted };
  }

  it.each([
    ['/etc/passwd', () => '/etc/passwd', /it is an absolute path/],
    ['an absolute path to a valid script', () => canary, /it is an absolute path/],
    ['../ from the base directory', () => relative(dirname(kit.scriptsDir), canary), /it climbs out with \.\./],
    ['kit/../..', () => `kit/../${relative(dirname(kit.scriptsDir), canary)}`, /it climbs out with \.\./],
  ])('scripted: with %s is refused at the door in words, no thread starts and the file is never read', async (_what, path, why) => {
    const model = `scripted:${path()}`;
    const { told, threadId, posted } = await refusedAtDoor(`model:${model} hello`);
    expect(told).toContain(`I did not use the model ${model}`);
    expect(told).toMatch(why);
    expect(told).not.toContain(CANARY);
    expect(told).not.toMatch(/root:x?:0:0/);
    await expect(kit.threadState(threadId)).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect(posted()).not.toContain(CANARY);
  });

  it('a model the operator did not allow is refused in words, naming what may be chosen', async () => {
    const { outcome } = await ask('model:anthropic:claude-opus-4-1 hello');
    expect(outcome).toMatchObject({ kind: 'refused' });
    expect(outcome.reply).toBe(
      'The model anthropic:claude-opus-4-1 is not one a message may choose here. You may choose scripted:kit/*, ' +
        'or leave out model: to use the configured one. An operator can allow more models in models.allowed.',
    );
  });

  it('an allowed script runs (the check refuses only what it must)', async () => {
    const model = kit.script('allowed', [{ text: 'Allowed and answered.' }]);
    const { outcome } = await ask(`model:scripted:${model} hello`);
    expect(outcome).toMatchObject({ kind: 'run' });
    expect((await kit.result(outcome.runId!)).finalText).toBe('Allowed and answered.');
  });

  it('a symbolic link out of an allowed directory passes the allowlist but the model activity refuses it, quoting nothing', async () => {
    symlinkSync(canary, join(kit.scriptsDir, 'escape.yaml'));
    const { outcome, posted } = await ask('model:scripted:kit/escape.yaml hello');
    expect(outcome).toMatchObject({ kind: 'run' });
    const record = await kit.result(outcome.runId!);
    expect(record.outcome).toBe('failed');
    expect(JSON.stringify(record)).toContain('a symbolic link leads outside its scripted directory');
    expect(JSON.stringify(record)).not.toContain(CANARY);
    await kit.until(() => posted().includes('Failed'), 'the final card');
    expect(posted()).not.toContain(CANARY);
  });
});

describe('a model: directive in a GitHub comment', () => {
  const SECRET = 'model-choice-webhook-secret';
  const ALICE_TOKEN = 'ghp_alice';
  let kit: RunKit;
  let github: LocalGitHub;
  let http: Server;
  const repo = `models-${randomUUID().slice(0, 8)}/app`;
  let pullRequest: number;

  beforeAll(async () => {
    const port = await freePort();
    github = await startLocalGitHub({
      tokens: { read: ['read-token'], write: ['write-token', ALICE_TOKEN] },
      logins: { [ALICE_TOKEN]: 'alice', 'write-token': 'switchboard[bot]' },
      webhookUrl: `http://127.0.0.1:${port}/webhooks/github`,
      webhookSecret: SECRET,
    });
    const [owner, name] = repo.split('/');
    // Alice may ask here (the actor gate reads her role from GitHub).
    github.createRepo(owner, name, { 'README.md': '# app\n' }, { collaborators: { alice: 'write' } });
    github.commit(repo, 'feature', { 'a.txt': 'a\n' });
    const identities = createGitHubIdentities({
      apiUrl: github.apiUrl,
      gitUrl: github.gitUrl,
      tokens: { read: 'read-token', write: 'write-token' },
    });
    kit = await startRunKit('model-choice-gh', { github: identities });
    const logger = createLogger({ level: 'silent' });
    const router = createGitHubWebhookRouter({
      client: kit.env.client,
      taskQueue: kit.taskQueue,
      secret: SECRET,
      botLogin: 'switchboard',
      logger,
      admission: githubDoorAdmission(github, { read: 'read-token', write: 'write-token' }),
    });
    const app = createServerApp({
      client: kit.env.client,
      logger,
      mounts: [{ path: '/webhooks/github', handler: router }],
      health: { namespace: 'default', taskQueue: kit.taskQueue, pingTemporal: async () => undefined, workerState: () => 'RUNNING' },
    });
    http = app.listen(port, '127.0.0.1');
    const alice = createGitHubActivities({
      identities: createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl, tokens: { write: ALICE_TOKEN } }),
    });
    const opened = await alice.openOrUpdatePullRequest({
      repo,
      head: 'feature',
      base: 'main',
      title: 't',
      body: 'b',
      effectKey: 'setup/open',
    });
    pullRequest = opened.number!;
    await github.webhooks.settle();
  });
  afterAll(async () => {
    await kit?.close();
    http?.close();
    await github?.close();
  });

  /** Alice's comment as GitHub delivers it (signed) to our server, then the thread's decision and its answer. */
  async function comment(text: string): Promise<{ outcome: MessageOutcome; reply: string }> {
    const delivery = await github.webhooks.deliver('issue_comment', {
      action: 'created',
      issue: { number: pullRequest, pull_request: { url: 'x' } },
      comment: { id: Date.now(), body: `@switchboard ${text}`, user: { login: 'alice' } },
      repository: { full_name: repo },
      sender: { login: 'alice' },
    });
    expect(delivery.status).toBe(202);
    const handle = kit.env.client.workflow.getHandle(`thread:gh:${repo}#${pullRequest}`);
    const outcome = await waitUntil(
      async () => (await handle.query(threadStateQuery)).outcomes.find((entry) => entry.messageId === `github:${delivery.id}`),
      (found) => found !== undefined,
      30_000,
      100,
    );
    // The words the thread answers with (a GitHub target's reply goes through deliverReply).
    return { outcome: outcome!, reply: outcome!.reply ?? '' };
  }

  /** Alice's comment with a model the door refuses: a 👎, the door's sentence on the PR, and no thread. */
  async function refusedAtDoor(text: string, words: string): Promise<string> {
    const delivery = await github.webhooks.deliver('issue_comment', {
      action: 'created',
      issue: { number: pullRequest, pull_request: { url: 'x' } },
      comment: { id: Date.now(), body: `@switchboard ${text}`, user: { login: 'alice' } },
      repository: { full_name: repo },
      sender: { login: 'alice' },
    });
    expect(delivery.status).toBeLessThan(300);
    const [owner, name] = repo.split('/');
    const answer = await waitUntil(
      async () =>
        github.state
          .repo(owner, name)!
          .issues.get(pullRequest)!
          .comments.find((entry) => entry.user === 'switchboard[bot]' && entry.body.includes(words)),
      (found) => found !== undefined,
      30_000,
      100,
    );
    return answer!.body;
  }

  it.each([
    ['scripted:/etc/passwd', /I did not use the model scripted:\/etc\/passwd: it is an absolute path/],
    ['scripted:../../x.yaml', /I did not use the model scripted:\.\.\/\.\.\/x\.yaml: it climbs out with \.\./],
  ])('model:%s is refused at the door with a plain comment and no thread starts', async (model, words) => {
    const reply = await refusedAtDoor(`model:${model} please look`, `I did not use the model ${model}`);
    expect(reply).toMatch(words);
    expect(reply).not.toMatch(/root:x?:0:0/);
    await expect(kit.env.client.workflow.getHandle(`thread:gh:${repo}#${pullRequest}`).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
  });

  it('an absolute path to a readable script is refused at the door without reading it', async () => {
    const reply = await refusedAtDoor(`model:scripted:${canary} please look`, `I did not use the model scripted:${canary}`);
    expect(reply).toContain('it is an absolute path');
    expect(reply).not.toContain(CANARY);
  });

  it('model:anthropic:claude-opus-4-1 (a real model no message may choose here) is refused by the thread with a plain comment and nothing runs', async () => {
    const { outcome, reply } = await comment('model:anthropic:claude-opus-4-1 please look');
    expect(outcome).toMatchObject({ kind: 'refused' });
    expect(outcome.runId).toBeUndefined();
    expect(reply).toMatch(
      /The model anthropic:claude-opus-4-1 is not one a message may choose here\. You may choose anthropic:claude-sonnet-4-6/,
    );
  });
});
