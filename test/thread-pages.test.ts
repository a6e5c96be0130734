import { randomBytes, randomUUID } from 'node:crypto';
import { type Client } from '@temporalio/client';
import { createGitHubActivities, createGitHubIdentities } from '../activities/github';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import { SessionLinks } from '../infra/session-links';
import { JobAcceptedSchema } from '../server/api/schemas';
import { threadStateQuery } from '../workflows/contracts';
import { SLACK_BOT, SLACK_TEAM, startDeployment, WEBHOOK_SECRET, type Deployment } from './helpers/deployment';
import { freePort } from './helpers/ports';
import { sharedEnvironment } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(240_000);

/**
 * Issue 32 item 2: a thread's session page opens however long the thread, on the real product
 * (`node dist/infra/main.js`) with a local Slack and a local GitHub. An idle thread's last event is
 * a workflow task's, which no page shows; the page must not wait for another event to come.
 */

const SECRET = randomBytes(32).toString('hex');
const REPO = `pages-${randomUUID().slice(0, 6)}/app`;
const [ANA_GH, READ, WRITE] = ['gh-ana', 'gh-read', 'gh-write'];

let client: Client;
let github: LocalGitHub;
let product: Deployment;
let hello: string;
const links = () => new SessionLinks(SECRET, 3_600_000, product.origin);

beforeAll(async () => {
  client = (await sharedEnvironment()).client;
  const port = await freePort();
  github = await startLocalGitHub({
    tokens: { read: [READ], write: [WRITE, ANA_GH] },
    logins: { [ANA_GH]: 'ana' },
    webhookUrl: `http://127.0.0.1:${port}/webhooks/github`,
    webhookSecret: WEBHOOK_SECRET,
  });
  const [owner, name] = REPO.split('/');
  github.createRepo(owner, name, { 'README.md': '# app\n' }, { collaborators: { ana: 'write' } });
  github.commit(REPO, 'feature', { 'a.txt': 'a\n' });
  product = await startDeployment('thread-pages', {
    github,
    githubTokens: { read: READ, write: WRITE },
    port,
    config: {},
    apiTokens: { ana: { user: 'ana' } },
    env: { SWITCHBOARD_SESSION_SECRET: SECRET },
  });
  hello = product.script('hello', [{ text: 'Hello from the **thread**.' }]);
});

afterAll(async () => {
  if (product)
    for await (const execution of client.workflow.list({ query: `TaskQueue = "${product.taskQueue}" AND ExecutionStatus = "Running"` }))
      await client.workflow
        .getHandle(execution.workflowId)
        .terminate('test over')
        .catch(() => undefined);
  await product?.close();
  await github?.close();
});

/**
 * The thread has started `runs` runs, none is running, and nothing of the last one is still under
 * way (its answer is delivered after the run is let go): it waits, and its last event is a
 * workflow task's.
 */
async function idle(threadId: string, runs: number): Promise<number> {
  const handle = client.workflow.getHandle(threadId);
  await waitUntil(
    async () => {
      const state = await handle.query(threadStateQuery).catch(() => undefined);
      if (!state || state.runCount < runs || state.currentRunId !== undefined) return false;
      const { raw } = await handle.describe();
      return (raw.pendingActivities ?? []).length === 0 && !raw.pendingWorkflowTask;
    },
    (still) => still,
    120_000,
  );
  const description = await handle.describe();
  return description.historyLength;
}

/**
 * Opens a page and says it answered while the thread stood still (no event came meanwhile):
 * before the fix it waited for the next event, which an idle thread never has.
 */
async function opensWhileIdle(threadId: string, url: string, headers: Record<string, string> = {}): Promise<string> {
  const before = (await client.workflow.getHandle(threadId).describe()).historyLength;
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(60_000) });
  expect(response.status).toBe(200);
  const html = await response.text();
  expect((await client.workflow.getHandle(threadId).describe()).historyLength).toBe(before);
  return html;
}

/** The page's live stream, read until `until` holds of what came (or the stream ends). */
async function streamUntil(url: string, until: (text: string) => boolean): Promise<string> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  let text = '';
  try {
    while (!until(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString();
    }
  } finally {
    controller.abort();
  }
  return text;
}

it('opens a Slack thread’s page at once while the thread is idle, and follows it live when the next message comes', async () => {
  const said = await product.slack.userSays({ channel: 'C0TEAM', user: 'U0ANA', text: `<@${SLACK_BOT}> model:${hello} first question` });
  const threadTs = said.message.ts;
  const threadId = `thread:slack:${SLACK_TEAM}:C0TEAM:${threadTs}`;
  // A longer thread: three exchanges before the page is opened.
  await idle(threadId, 1);
  for (const [n, text] of ['second question', 'third question'].entries()) {
    await product.slack.userSays({ channel: 'C0TEAM', user: 'U0ANA', text: `model:${hello} ${text}`, threadTs });
    await idle(threadId, n + 2);
  }
  const url = links().url(threadId);
  const html = await opensWhileIdle(threadId, url);
  expect(html).toContain('first question');
  expect(html).toContain('third question');

  // Live: a stream opened on the idle thread gets the next message when it comes.
  const events = new URL(url);
  events.pathname += '/events';
  const streamed = streamUntil(events.href, (text) => text.includes('fourth question'));
  await product.slack.userSays({ channel: 'C0TEAM', user: 'U0ANA', text: `model:${hello} fourth question`, threadTs });
  expect(await streamed).toContain('fourth question');
});

it('opens a pull request’s thread page with its signed link, and an API thread’s with its owner’s token', async () => {
  const gh = createGitHubActivities({
    identities: createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl, tokens: { write: ANA_GH } }),
  });
  const pr = (await gh.openOrUpdatePullRequest({ repo: REPO, head: 'feature', base: 'main', title: 'A', body: 'a', effectKey: 'pr' }))
    .number!;
  await gh.postComment({
    repo: REPO,
    number: pr,
    body: `@switchboard agent:general model:${hello} what is this?`,
    effectKey: randomUUID(),
  });
  const prThread = `thread:gh:${REPO}#${pr}`;
  await idle(prThread, 1);
  expect(await opensWhileIdle(prThread, links().url(prThread))).toContain('what is this?');

  const response = await product.api('/jobs', { as: 'ana', body: { text: 'an API question', model: hello } });
  expect(response.status).toBe(202);
  const job = JobAcceptedSchema.parse(await response.json());
  await idle(job.threadId, 1);
  const html = await opensWhileIdle(job.threadId, `${product.origin}/session/${encodeURIComponent(job.threadId)}`, {
    authorization: `Bearer ${product.tokens.ana}`,
  });
  expect(html).toContain('an API question');
});
