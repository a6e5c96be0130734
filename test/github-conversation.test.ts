import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import express from 'express';
import { parse, stringify } from 'yaml';
import { createGitHubActivities, createGitHubIdentities } from '../activities/github';
import { createLogger } from '../infra/logger';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import { createGitHubWebhookRouter } from '../server/github-webhooks';
import { githubDoorAdmission } from './helpers/github-admission';
import { freePort } from './helpers/ports';
import { testScripts, type TestScripts } from './helpers/scripts';
import { sharedEnvironment, uniqueTaskQueue } from './helpers/temporal';
import { startWorkerProcess, type WorkerProcess } from './helpers/worker-process';

jest.setTimeout(150_000);

const SECRET = 'conversation-secret';
const ALICE = 'ghp_alice_conversation';
const BOT = 'ghp_bot_conversation';
const READER = 'ghp_reader_conversation';

/**
 * Issue 11's first door: a mention in a PR comment, through a real signed webhook, is
 * answered in the PR. The status comment's first post is held by the local GitHub while the
 * worker is SIGKILLed; the answer's response is dropped. Still one card, one answer.
 */
describe('a PR mention answered in the PR', () => {
  let env: TestWorkflowEnvironment;
  let github: LocalGitHub;
  let http: Server;
  let dir: string;
  let scripts: TestScripts;
  const workers: WorkerProcess[] = [];
  const taskQueue = uniqueTaskQueue('gh-conversation');

  beforeAll(async () => {
    env = await sharedEnvironment();
    const port = await freePort();
    github = await startLocalGitHub({
      tokens: { read: [READER], write: [ALICE, BOT] },
      logins: { [ALICE]: 'alice', [BOT]: 'switchboard[bot]' },
      webhookUrl: `http://127.0.0.1:${port}/webhooks/github`,
      webhookSecret: SECRET,
    });
    const app = express();
    app.use(
      '/webhooks/github',
      createGitHubWebhookRouter({
        client: env.client,
        taskQueue,
        secret: SECRET,
        botLogin: 'switchboard',
        logger: createLogger({ level: 'silent' }),
        admission: githubDoorAdmission(github, { read: READER, write: BOT }),
      }),
    );
    http = app.listen(port, '127.0.0.1');
    dir = mkdtempSync(join(tmpdir(), 'switchboard-gh-conversation-'));
    scripts = testScripts(dir);
    // A message from GitHub may choose only allowed models: the kit's scripts are.
    const config = parse(readFileSync(scripts.configFile, 'utf8')) as { models: Record<string, unknown> };
    writeFileSync(scripts.configFile, stringify({ ...config, models: { ...config.models, allowed: ['scripted:kit/*'] } }));
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await github?.close();
    http?.close();
    rmSync(dir, { recursive: true, force: true });
    await env?.teardown();
  });

  const startWorker = () =>
    startWorkerProcess({
      taskQueue,
      dataDir: join(dir, 'data'),
      cwd: dir,
      env: { GITHUB_API_URL: github.apiUrl, GITHUB_GIT_URL: github.gitUrl, GITHUB_READ_TOKEN: READER, GITHUB_WRITE_TOKEN: BOT },
    });

  it('posts one status comment and one answer, and reacts on the asking comment', async () => {
    // Alice may ask: the actor gate reads her role from GitHub (write by default for every agent).
    github.createRepo('acme', 'talk', { 'README.md': '# talk\n' }, { collaborators: { alice: 'write' } });
    github.commit('acme/talk', 'feature', { 'a.txt': 'a\n' });
    const alice = createGitHubActivities({
      identities: createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl, tokens: { write: ALICE } }),
    });
    const pr = await alice.openOrUpdatePullRequest({
      repo: 'acme/talk',
      head: 'feature',
      base: 'main',
      title: 'A',
      body: 'a',
      effectKey: 'o',
    });
    const model = scripts.write('pr-answer', [{ text: 'The PR adds a.txt.' }]);
    const asked = await alice.postComment({
      repo: 'acme/talk',
      number: pr.number!,
      body: `@switchboard model:${model} what does this PR do?`,
      effectKey: 'ask',
      attempt: 1,
    });
    // No worker polls yet, so nothing of ours is posted before the fault is in place: the
    // card's first post is applied and its answer held, and the worker dies without knowing.
    github.faults.holdResponse({ method: 'POST', path: new RegExp(`/issues/${pr.number}/comments$`) }, 120_000);
    workers.push(await startWorker());
    const pull = () => github.state.repo('acme', 'talk')!.issues.get(pr.number!)!;
    const bot = () => pull().comments.filter((comment) => comment.user === 'switchboard[bot]');
    await waitFor(
      () => bot().length === 1,
      30_000,
      () => [pull().comments, github.webhooks.deliveries, workers[0].output()],
    );
    await workers[0].kill();
    // The answer's response is lost too: its retry finds the marker.
    github.faults.dropResponse({ method: 'POST', path: new RegExp(`/issues/${pr.number}/comments$`) });
    workers.push(await startWorker());

    await waitFor(
      () => bot().some((comment) => comment.body.startsWith('The PR adds a.txt.')),
      100_000,
      () => [pull().comments, workers[1].output()],
    );
    await waitFor(() => bot().some((comment) => /✅ Completed/.test(comment.body)));
    const bodies = bot().map((comment) => comment.body);
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toMatch(
      /^\*\*general\*\* · `scripted:kit\/pr-answer.yaml` — ✅ Completed[\s\S]*<!-- switchboard-effect: run:thread:gh:acme\/talk#\d+:1\/card\/0 -->$/,
    );
    expect(bodies[1]).toMatch(/^The PR adds a\.txt\.\n\n<!-- switchboard-effect: run:thread:gh:acme\/talk#\d+:1\/answer -->$/);
    const asking = pull().comments.find((comment) => comment.id === asked.id)!;
    expect(asking.reactions?.map((reaction) => [reaction.content, reaction.user])).toEqual([['eyes', 'switchboard[bot]']]);
    expect(github.state.countWrites('comment.create', 'acme/talk')).toBe(3); // alice's and ours
  });

  it('refuses a ship unit the worker could not run with the missing setting, and reacts 👎', async () => {
    github.createRepo('acme', 'refuse', { 'README.md': '# refuse\n' }, { collaborators: { alice: 'write' } });
    github.commit('acme/refuse', 'feature', { 'b.txt': 'b\n' });
    const alice = createGitHubActivities({
      identities: createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl, tokens: { write: ALICE } }),
    });
    const pr = await alice.openOrUpdatePullRequest({
      repo: 'acme/refuse',
      head: 'feature',
      base: 'main',
      title: 'B',
      body: 'b',
      effectKey: 'o2',
    });
    const asked = await alice.postComment({
      repo: 'acme/refuse',
      number: pr.number!,
      body: '@switchboard agent:ship add a changelog line',
      effectKey: 'ask-ship',
      attempt: 1,
    });
    const pull = () => github.state.repo('acme', 'refuse')!.issues.get(pr.number!)!;
    await waitFor(
      () => pull().comments.length === 2,
      60_000,
      () => pull().comments,
    );
    // The worker has both GitHub identities but no key for the default model.
    expect(pull().comments[1].body).toMatch(
      /^Not started: a ship unit needs the key of anthropic:claude-sonnet-4-6: set ANTHROPIC_API_KEY\./,
    );
    expect(
      pull()
        .comments.find((c) => c.id === asked.id)!
        .reactions?.map((r) => r.content),
    ).toEqual(['-1']);
    await expect(env.client.workflow.getHandle(`unit:acme/refuse#${pr.number}`).describe()).rejects.toThrow(/not found/i);
  });
});

async function waitFor(check: () => boolean, timeoutMs = 60_000, state: () => unknown = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met in time: ${JSON.stringify(state())}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
