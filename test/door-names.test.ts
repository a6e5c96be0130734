import { randomUUID } from 'node:crypto';
import { type Client } from '@temporalio/client';
import { createGitHubActivities, createGitHubIdentities } from '../activities/github';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import { threadStateQuery } from '../workflows/contracts';
import { SLACK_BOT, SLACK_TEAM, startDeployment, WEBHOOK_SECRET, type Deployment } from './helpers/deployment';
import { freePort } from './helpers/ports';
import { sharedEnvironment } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(240_000);

/**
 * Issue 32: an agent or a model nobody has is refused at every door (CLI, Slack, GitHub, HTTP,
 * MCP) before a thread exists, on the real product (`node dist/infra/main.js`) with a local Slack
 * and a local GitHub. Before, `ask --model nope:x` started a thread and a run that did nothing.
 */

const REPO = `names-${randomUUID().slice(0, 6)}/app`;
const [ANA_GH, READ, WRITE] = ['gh-ana-names', 'gh-read-names', 'gh-write-names'];

let client: Client;
let github: LocalGitHub;
let product: Deployment;
let hello: string;

beforeAll(async () => {
  client = (await sharedEnvironment()).client;
  const port = await freePort();
  github = await startLocalGitHub({
    tokens: { read: [READ], write: [WRITE, ANA_GH] },
    logins: { [ANA_GH]: 'ana', [WRITE]: 'switchboard[bot]' },
    webhookUrl: `http://127.0.0.1:${port}/webhooks/github`,
    webhookSecret: WEBHOOK_SECRET,
  });
  const [owner, name] = REPO.split('/');
  github.createRepo(owner, name, { 'README.md': '# app\n' }, { collaborators: { ana: 'write' } });
  github.commit(REPO, 'feature', { 'a.txt': 'a\n' });
  product = await startDeployment('door-names', {
    github,
    githubTokens: { read: READ, write: WRITE },
    port,
    config: {},
    apiTokens: { ana: { user: 'ana' } },
  });
  hello = product.script('hello', [{ text: 'Hello.' }]);
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

const exists = (workflowId: string) =>
  client.workflow
    .getHandle(workflowId)
    .describe()
    .then(
      () => true,
      () => false,
    );

/** The deployment's workflows so far (visibility), to show a refused request started none. */
async function workflowsOfDeployment(): Promise<string[]> {
  const ids: string[] = [];
  for await (const execution of client.workflow.list({ query: `TaskQueue = "${product.taskQueue}"` })) ids.push(execution.workflowId);
  return ids;
}

it('the CLI, the HTTP API and MCP refuse them before a thread exists, and start one for known names', async () => {
  const cli = await product.cli(['ask', '--model', 'nope:x', 'say hello']);
  expect(cli).toMatchObject({ code: 1 });
  expect(cli.stderr).toContain('Not started (model_unknown): There is no model called "nope:x"');
  const wizard = await product.cli(['ask', '--agent', 'wizard', 'do magic']);
  expect(wizard).toMatchObject({ code: 1 });
  expect(wizard.stderr).toContain('Not started (agent_unknown): There is no agent called "wizard"');

  const api = await product.api('/jobs', { as: 'ana', body: { text: 'say hello', model: 'nope:x' } });
  expect(api.status).toBe(422);
  expect(await api.json()).toMatchObject({ refusal: 'model_unknown' });
  const inText = await product.api('/jobs', { as: 'ana', body: { text: 'agent:wizard do magic' } });
  expect(inText.status).toBe(422);
  expect(await inText.json()).toMatchObject({ refusal: 'agent_unknown' });
  const mcp = await product.mcp('ana', 'ask', { text: 'say hello', model: 'nope:x' });
  expect({ isError: mcp.isError, ...(mcp.structuredContent as object) }).toMatchObject({ isError: true, refusal: 'model_unknown' });

  // A known model starts its thread and run: once it shows in visibility, the refused ones show no workflow beside it.
  const admitted = await product.cli(['ask', '--model', hello, 'say hello', '--json']);
  expect(admitted.code).toBe(0);
  const record = JSON.parse(admitted.stdout) as { runId: string; threadId: string };
  const ids = await waitUntil(workflowsOfDeployment, (listed) => listed.includes(record.threadId) && listed.includes(record.runId), 60_000);
  expect(ids.sort()).toEqual([record.runId, record.threadId].sort());
});

it('Slack and GitHub refuse them at the door, where only the asker sees it or with a 👎 and a comment, and start no thread', async () => {
  const said = await product.slack.userSays({ channel: 'C0NAMES', user: 'U0ANA', text: `<@${SLACK_BOT}> model:nope:x say hello` });
  const slackThread = `thread:slack:${SLACK_TEAM}:C0NAMES:${said.message.ts}`;
  expect(said.deliveries.every((sent) => sent.result.status === 200)).toBe(true);
  const told = await waitUntil(
    async () => product.slack.state.ephemerals.filter((message) => message.user === 'U0ANA' && message.channel === 'C0NAMES'),
    (found) => found.length > 0,
  );
  expect(told[0]).toMatchObject({ threadTs: said.message.ts, text: expect.stringContaining('There is no model called "nope:x"') });
  expect(await exists(slackThread)).toBe(false);

  const gh = createGitHubActivities({
    identities: createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl, tokens: { write: ANA_GH } }),
  });
  const pr = (await gh.openOrUpdatePullRequest({ repo: REPO, head: 'feature', base: 'main', title: 'A', body: 'a', effectKey: 'pr' }))
    .number!;
  await github.webhooks.settle();
  await gh.postComment({ repo: REPO, number: pr, body: '@switchboard agent:wizard do magic', effectKey: randomUUID() });
  await github.webhooks.settle();
  const [owner, name] = REPO.split('/');
  const conversation = () => github.state.repo(owner, name)!.issues.get(pr)!;
  const answer = await waitUntil(
    async () => conversation().comments.filter((comment) => comment.user === 'switchboard[bot]'),
    (found) => found.length > 0,
  );
  expect(answer[0].body).toContain('There is no agent called "wizard"');
  const asked = conversation().comments.find((comment) => comment.body.includes('agent:wizard'))!;
  expect(asked.reactions).toEqual(expect.arrayContaining([expect.objectContaining({ content: '-1' })]));
  const prThread = `thread:gh:${REPO}#${pr}`;
  expect(await exists(prThread)).toBe(false);

  // The same doors with a known model start the thread, which takes it.
  await product.slack.userSays({ channel: 'C0NAMES', user: 'U0ANA', text: `<@${SLACK_BOT}> model:${hello} say hello` });
  await waitUntil(
    async () => {
      for await (const execution of client.workflow.list({
        query: `TaskQueue = "${product.taskQueue}" AND WorkflowId STARTS_WITH "thread:slack:"`,
      }))
        return (await client.workflow.getHandle(execution.workflowId).query(threadStateQuery)).runCount;
      return 0;
    },
    (runs) => runs === 1,
    60_000,
  );
});
