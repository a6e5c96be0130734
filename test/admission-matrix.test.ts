import { createHmac, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { createGitHubActivities, createGitHubIdentities } from '../activities/github';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import {
  runStatusQuery,
  steerSignal,
  threadStateQuery,
  unitStateQuery,
  type MessageOutcome,
  type PlanRecord,
  type RunRecord,
  type UnitRecord,
} from '../workflows/contracts';
import { SLACK_BOT, SLACK_TEAM, startDeployment, WEBHOOK_SECRET, type Deployment } from './helpers/deployment';
import { freePort } from './helpers/ports';
import { sharedEnvironment } from './helpers/temporal';
import { taskUnitId } from '../workflows/unit/unit-id';
import { waitUntil } from './helpers/wait';

jest.setTimeout(300_000);

/**
 * Issue 23's door × rule matrix, on the real product (`node dist/infra/main.js`: the worker and
 * every front end) with a local Slack and a local GitHub: every door asked against every rule of
 * the one admission, refused and admitted. A refusal is asserted by its code and by nothing
 * having started or reached the workflow (no run, no unit, no steer signal, the run still going).
 *
 * People: Ana may use everything; Bob may not use coding, ship or explore (restrict), is a triage
 * collaborator on GitHub (general is configured at triage there) and has an API token; Mallory
 * has no role on the repository; U0OPS is an operator; the `ops` token is an admin token. The CLI
 * runs as root (named in restrict) or as `nobody` (not named). A second deployment runs as
 * `nobody`, so its worker really cannot isolate commands: the sandbox rule is asked there.
 */

const ANA = 'U0ANA';
const BOB = 'U0BOB';
const OPS = 'U0OPS';
const TEAM_CHANNEL = 'C0TEAM';
const [ANA_GH, BOB_GH, MALLORY_GH, READ, WRITE] = ['gh-ana', 'gh-bob', 'gh-mallory', 'gh-read', 'gh-write'];
const REPO = `admit-${randomUUID().slice(0, 6)}/app`;
const ROOT = userInfo().username;

const config = {
  agents: {
    restrict: {
      agents: {
        coding: [ANA, 'github:ana', 'ana', ROOT],
        ship: [ANA, 'github:ana', 'ana', 'ops', 'cara', ROOT],
        explore: [ANA, 'github:ana', 'ana', ROOT],
      },
    },
    featureFlags: { orchestrator: true },
  },
  admission: { operators: [OPS], github: { agents: { general: 'triage' } } },
};
const apiTokens = { ana: { user: 'ana' }, bob: { user: 'bob' }, cara: { user: 'cara' }, ops: { user: 'ops', admin: true } };

let client: Client;
let github: LocalGitHub;
let a: Deployment;
let b: Deployment;
let pr: number;
let issue: number;
let featureHead: string;
const models: Record<string, string> = {};

const gh = (token: string) =>
  createGitHubActivities({
    identities: createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl, tokens: { write: token } }),
  });

beforeAll(async () => {
  client = (await sharedEnvironment()).client;
  const port = await freePort();
  github = await startLocalGitHub({
    tokens: { read: [READ], write: [WRITE, ANA_GH, BOB_GH, MALLORY_GH] },
    logins: { [ANA_GH]: 'ana', [BOB_GH]: 'bob', [MALLORY_GH]: 'mallory' },
    webhookUrl: `http://127.0.0.1:${port}/webhooks/github`,
    webhookSecret: WEBHOOK_SECRET,
  });
  const [owner, name] = REPO.split('/');
  github.createRepo(owner, name, { 'README.md': '# app\n' }, { collaborators: { ana: 'write', bob: 'triage' } });
  featureHead = github.commit(REPO, 'feature', { 'a.txt': 'a\n' });
  const githubTokens = { read: READ, write: WRITE };
  [a, b] = await Promise.all([
    startDeployment('admit-a', { github, githubTokens, port, config, apiTokens }),
    startDeployment('admit-b', { github, githubTokens, config, apiTokens, asNobody: true }),
  ]);
  for (const deployment of [a, b]) {
    models.hello = deployment.script('hello', [{ text: 'Hello.' }]);
    models.slow = deployment.script('slow', [{ text: 'Thinking.', delayMs: 600_000 }]);
  }
  pr = (await gh(ANA_GH).openOrUpdatePullRequest({ repo: REPO, head: 'feature', base: 'main', title: 'A', body: 'a', effectKey: 'pr' }))
    .number!;
  issue = (await gh(ANA_GH).createIssue({ repo: REPO, title: 'The README has a typo', body: 'Fix it.', effectKey: 'issue' })).number!;
  await github.webhooks.settle();
});

afterAll(async () => {
  for (const deployment of [a, b]) {
    if (!deployment) continue;
    for await (const execution of client.workflow.list({ query: `TaskQueue = "${deployment.taskQueue}" AND ExecutionStatus = "Running"` }))
      await client.workflow
        .getHandle(execution.workflowId)
        .terminate('test over')
        .catch(() => undefined);
  }
  await a?.close();
  await b?.close();
  await github?.close();
});

// ---- helpers: what a door was answered, and that nothing started ----

async function exists(workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** A Slack message (a mention in a channel, a DM, or a reply) and the thread's decision on it. */
async function slackSays(
  deployment: Deployment,
  user: string,
  text: string,
  where: { channel?: string; threadTs?: string } = {},
): Promise<{ ts: string; threadId: string; outcome: MessageOutcome }> {
  const channel = where.channel ?? TEAM_CHANNEL;
  const dm = channel.startsWith('D');
  const said = await deployment.slack.userSays({
    channel,
    user,
    text: dm || where.threadTs ? text : `<@${SLACK_BOT}> ${text}`,
    ...(where.threadTs ? { threadTs: where.threadTs } : {}),
  });
  const delivery = said.deliveries.find((sent) => (sent.envelope.event as { type: string }).type === 'app_mention') ?? said.deliveries[0];
  expect(delivery.result.status).toBe(200);
  const threadId = `thread:slack:${SLACK_TEAM}:${channel}:${where.threadTs ?? said.message.ts}`;
  return { ts: said.message.ts, threadId, outcome: await outcome(threadId, delivery.envelope.event_id as string) };
}

/** What a thread made of one message (it decides before anything starts). */
async function outcome(threadId: string, messageId: string): Promise<MessageOutcome> {
  const found = await waitUntil(
    async () =>
      (
        await client.workflow
          .getHandle(threadId)
          .query(threadStateQuery)
          .catch(() => undefined)
      )?.outcomes.find((entry) => entry.messageId === messageId),
    (entry) => entry !== undefined,
    60_000,
  );
  return found!;
}

/** Refused with `code`, and the thread started no run for it. */
async function expectRefusedInThread(threadId: string, decided: MessageOutcome, code: string): Promise<void> {
  expect(decided).toMatchObject({ kind: 'refused', code });
  const state = await client.workflow.getHandle(threadId).query(threadStateQuery);
  expect(state.currentRunId).toBeUndefined();
  expect(await exists(`run:${threadId}:${state.runCount + 1}`)).toBe(false);
}

async function problem(response: Response) {
  return (await response.json()) as { status: number; code: string; refusal?: string; detail: string };
}

const mcpCode = (result: { isError?: boolean; structuredContent?: unknown }) => ({
  isError: result.isError,
  ...(result.structuredContent as Record<string, unknown>),
});

async function runningPhase(runId: string) {
  return client.workflow.getHandle(runId).query(runStatusQuery);
}

async function steersOf(workflowId: string): Promise<number> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === steerSignal.name).length;
}

/** A PR or issue comment by a person, as GitHub delivers it (signed) to deployment A; the delivery and its answer. */
async function githubComment(token: string, number: number, body: string) {
  const before = github.webhooks.deliveries.length;
  const comment = await gh(token).postComment({ repo: REPO, number, body: `@switchboard ${body}`, effectKey: randomUUID() });
  await github.webhooks.settle();
  const delivery = github.webhooks.deliveries.slice(before).find((sent) => sent.event === 'issue_comment')!;
  return { comment, delivery };
}

const reactionsOn = (number: number, commentId: number) =>
  (
    github.state
      .repo(...(REPO.split('/') as [string, string]))!
      .issues.get(number)!
      .comments.find((c) => c.id === commentId)?.reactions ?? []
  ).map((reaction) => reaction.content);

// ---- the matrix ----

describe('Slack: mention, DM, thread reply, stop reaction and button', () => {
  let anaRun: { ts: string; threadId: string; runId: string };

  it('access: a person restricted from coding starts nothing; the one named starts a run', async () => {
    const refused = await slackSays(a, BOB, `agent:coding model:${models.slow} add a test`);
    await expectRefusedInThread(refused.threadId, refused.outcome, 'agent_restricted');
    const admitted = await slackSays(a, ANA, `agent:coding model:${models.slow} add a test`);
    expect(admitted.outcome).toMatchObject({ kind: 'run', agent: 'coding' });
    anaRun = { ts: admitted.ts, threadId: admitted.threadId, runId: admitted.outcome.runId! };
  });

  it('model and repository: a model outside models.allowed and an invisible repository start nothing', async () => {
    const model = await slackSays(a, ANA, 'model:anthropic:claude-opus-4-1 hi');
    await expectRefusedInThread(model.threadId, model.outcome, 'model_not_allowed');
    const ghost = await slackSays(a, ANA, `agent:explore model:${models.slow} in acme/ghost-${randomUUID().slice(0, 6)}: look`);
    await expectRefusedInThread(ghost.threadId, ghost.outcome, 'repo_not_visible');
    const visible = await slackSays(a, ANA, `agent:explore model:${models.slow} in ${REPO}: look`);
    expect(visible.outcome).toMatchObject({ kind: 'run', agent: 'explore' });
    await client.workflow.getHandle(visible.outcome.runId!).terminate('seen');
  });

  it('budgets only narrow, ship units included: agent:ship budget:30 bounds the unit’s runs by 30 minutes, on their cards', async () => {
    const refused = await slackSays(a, BOB, `agent:ship in ${REPO}: add a changelog`);
    await expectRefusedInThread(refused.threadId, refused.outcome, 'agent_restricted');
    const shipped = await slackSays(a, ANA, `agent:ship budget:30 model:${models.slow} in ${REPO}: add a changelog line`);
    expect(shipped.outcome).toMatchObject({ kind: 'unit' });
    const unitId = shipped.outcome.unitId!;
    const codingRun = `${unitId}/coding-1-1`;
    const status = await waitUntil(
      () => runningPhase(codingRun).catch(() => undefined),
      (found) => found?.phase === 'thinking',
      120_000,
    );
    expect(status!.budget).toMatchObject({ minutes: 30, description: '30 min (budget directive; preset asks 60)' });
    await waitUntil(
      async () =>
        a.slack.state
          .thread(TEAM_CHANNEL, shipped.ts)
          .map((message) => JSON.stringify(message.blocks ?? ''))
          .join(''),
      (cards) => cards.includes('30 min (budget directive; preset asks 60)'),
      30_000,
    );
    await client.workflow.getHandle(unitId).terminate('seen');
  });

  it('thread reply: someone else’s reply never steers the run; its requester’s does', async () => {
    const bob = await slackSays(a, BOB, 'do something else', { threadTs: anaRun.ts });
    expect(bob.outcome).toMatchObject({ kind: 'refused', code: 'not_requester' });
    expect(await steersOf(anaRun.runId)).toBe(0);
    const ana = await slackSays(a, ANA, 'also cover the edge case', { threadTs: anaRun.ts });
    expect(ana.outcome).toMatchObject({ kind: 'steered', runId: anaRun.runId });
    await waitUntil(
      () => steersOf(anaRun.runId),
      (count) => count === 1,
    );
  });

  it('stop button and reaction: someone else is refused (the run goes on); an operator stops it', async () => {
    const card = await waitUntil(
      async () => a.slack.state.thread(TEAM_CHANNEL, anaRun.ts).find((message) => message.metadata?.event_type === 'switchboard_card'),
      (found) => found !== undefined,
    );
    await a.slack.clickButton({ channel: TEAM_CHANNEL, user: BOB, messageTs: card!.ts, actionId: 'switchboard_stop', value: anaRun.runId });
    await waitUntil(
      async () => a.slack.callsTo('chat.postEphemeral').filter((call) => call.params.user === BOB),
      (calls) => calls.length > 0,
    );
    expect(JSON.stringify(a.slack.callsTo('chat.postEphemeral').at(-1)!.params.text)).toContain('belongs to someone else');
    await a.slack.react({ channel: TEAM_CHANNEL, user: BOB, ts: anaRun.ts, name: 'octagonal_sign' });
    await waitUntil(
      async () => a.slack.callsTo('chat.postEphemeral').filter((call) => call.params.user === BOB),
      (calls) => calls.length > 1,
    );
    expect((await runningPhase(anaRun.runId)).outcome).toBeUndefined();
    await a.slack.react({ channel: TEAM_CHANNEL, user: OPS, ts: card!.ts, name: 'octagonal_sign' });
    const record = (await client.workflow.getHandle(anaRun.runId).result()) as RunRecord;
    expect(record).toMatchObject({ outcome: 'stopped', endedBy: expect.stringContaining(`stopped by ${OPS}`) });
  });

  it("DM and orchestrator: unit tools only in the person's own DM, unit_start admitted as ship for that person", async () => {
    const bobDm = await slackSays(a, BOB, `agent:coding model:${models.slow} fix it`, { channel: 'D0BOB' });
    await expectRefusedInThread(bobDm.threadId, bobDm.outcome, 'agent_restricted');
    const starter = (slug: string) =>
      a.script(`orchestrate-${slug}`, [
        { text: 'Starting.', toolCalls: [{ name: 'unit_start', input: { repo: REPO, request: 'Add a greeting', slug } }] },
        { text: 'Result: {{lastToolResult}}' },
      ]);
    // Bob's own DM: the tools are his to use, but ship is not.
    const bobs = await slackSays(a, BOB, `model:${starter('bob-unit')} start it`, { channel: 'D0BOB' });
    const bobRecord = (await client.workflow.getHandle(bobs.outcome.runId!).result()) as RunRecord;
    expect(bobRecord.toolCalls).toEqual([
      expect.objectContaining({ name: 'unit_start', ok: false, error: expect.stringContaining('agent_restricted') }),
    ]);
    expect(await exists(`unit:${REPO}:bob-unit`)).toBe(false);
    // Ana in a channel thread: not her private DM.
    const channel = await slackSays(a, ANA, `agent:orchestrator model:${starter('channel-unit')} start it`);
    const channelRecord = (await client.workflow.getHandle(channel.outcome.runId!).result()) as RunRecord;
    expect(channelRecord.toolCalls).toEqual([
      expect.objectContaining({ name: 'unit_start', ok: false, error: expect.stringContaining('private DM') }),
    ]);
    expect(await exists(`unit:${REPO}:channel-unit`)).toBe(false);
    // Ana in her DM: started, and linked to her.
    const mine = await slackSays(a, ANA, `model:${starter('ana-unit')} start it`, { channel: 'D0ANA' });
    const mineRecord = (await client.workflow.getHandle(mine.outcome.runId!).result()) as RunRecord;
    expect(mineRecord.toolCalls).toEqual([expect.objectContaining({ name: 'unit_start', ok: true })]);
    const state = await client.workflow.getHandle(`unit:${REPO}:ana-unit`).query(unitStateQuery);
    expect(state).toMatchObject({ requester: ANA });
    // Someone else's unit is not hers to steer from her DM.
    const opsUnit = await a.api('/units', { as: 'ops', body: { repo: REPO, request: 'Add a footer', model: models.slow } });
    const { unitId } = (await opsUnit.json()) as { unitId: string };
    const steerer = a.script('orchestrate-steer', [
      { text: 'Steering.', toolCalls: [{ name: 'unit_steer', input: { unitId, text: 'make it bigger' } }] },
      { text: 'Result: {{lastToolResult}}' },
    ]);
    const steer = await slackSays(a, ANA, `model:${steerer} steer it`, { channel: 'D0ANA' });
    const steerRecord = (await client.workflow.getHandle(steer.outcome.runId!).result()) as RunRecord;
    expect(steerRecord.toolCalls).toEqual([
      expect.objectContaining({ name: 'unit_steer', ok: false, error: expect.stringContaining('not one of your linked units') }),
    ]);
    expect(await steersOf(unitId)).toBe(0);
    for (const id of [unitId, `unit:${REPO}:ana-unit`]) await client.workflow.getHandle(id).terminate('seen');
  });
});

describe('GitHub: PR comment, review comment, issue comment', () => {
  it("a stranger's signed mention (no role on the repository) starts nothing and gets one 👎, for coding and general alike", async () => {
    for (const ask of ['agent:coding delete the tests', `agent:general model:${models.hello} what is this?`]) {
      const { comment, delivery } = await githubComment(MALLORY_GH, pr, ask);
      expect(JSON.parse(delivery.body)).toMatchObject({ comment: { author_association: 'NONE' } });
      expect(delivery.status).toBe(202);
      expect(reactionsOn(pr, comment.id!)).toEqual(['-1']);
    }
    expect(await exists(`thread:gh:${REPO}#${pr}`)).toBe(false);
  });

  it('a triage collaborator may use general (configured at triage) and not review (write by default): refused in the PR', async () => {
    const refused = await githubComment(BOB_GH, pr, 'agent:review look at it');
    const threadId = `thread:gh:${REPO}#${pr}`;
    await expectRefusedInThread(threadId, await outcome(threadId, `github:${refused.delivery.id}`), 'actor_permission');
    await waitUntil(
      async () => reactionsOn(pr, refused.comment.id!),
      (reactions) => reactions.includes('-1'),
    );
    const admitted = await githubComment(BOB_GH, pr, `agent:general model:${models.hello} what is this?`);
    expect(await outcome(threadId, `github:${admitted.delivery.id}`)).toMatchObject({ kind: 'run', agent: 'general' });
    // A mention while that run still works would steer it (docs/github.md): the next one waits for its end.
    await waitUntil(
      () => client.workflow.getHandle(threadId).query(threadStateQuery),
      (state) => state.currentRunId === undefined,
    );
    const model = await githubComment(ANA_GH, pr, 'model:anthropic:claude-opus-4-1 hi');
    expect(await outcome(threadId, `github:${model.delivery.id}`)).toMatchObject({ kind: 'refused', code: 'model_not_allowed' });
  });

  it("a stranger's review comment mentioning the App is refused at the door with one 👎 on it; their review reaches no unit", async () => {
    const before = github.webhooks.deliveries.length;
    await gh(MALLORY_GH).postReview({
      repo: REPO,
      number: pr,
      commitSha: featureHead,
      event: 'COMMENT',
      body: 'drive-by',
      comments: [{ path: 'a.txt', line: 1, body: '@switchboard agent:coding rewrite this' }],
      effectKey: randomUUID(),
    });
    await github.webhooks.settle();
    const deliveries = github.webhooks.deliveries.slice(before);
    expect(deliveries.map((sent) => [sent.event, sent.status])).toEqual(
      expect.arrayContaining([
        ['pull_request_review_comment', 202],
        ['pull_request_review', 202],
      ]),
    );
    const item = github.state.repo(...(REPO.split('/') as [string, string]))!.issues.get(pr)!;
    expect(item.reviewComments.at(-1)!.reactions?.map((reaction) => reaction.content)).toEqual(['-1']);
    expect(await exists(`unit:${REPO}#${pr}`)).toBe(false);
  });

  it('issues are issues: a review asked there says it needs a PR; a change starts a unit whose PR will fix the issue', async () => {
    const threadId = `thread:gh:${REPO}#${issue}`;
    const review = await githubComment(ANA_GH, issue, 'agent:review look');
    await expectRefusedInThread(threadId, await outcome(threadId, `github:${review.delivery.id}`), 'needs_pull_request');
    const stranger = await githubComment(MALLORY_GH, issue, 'fix the typo in the README');
    expect(reactionsOn(issue, stranger.comment.id!)).toEqual(['-1']);
    const change = await githubComment(ANA_GH, issue, `model:${models.slow} fix the typo in the README`);
    const started = await outcome(threadId, `github:${change.delivery.id}`);
    expect(started).toMatchObject({ kind: 'unit' });
    expect(started.unitId).not.toBe(`unit:${REPO}#${issue}`);
    const history = await client.workflow.getHandle(started.unitId!).fetchHistory();
    const payload = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
    const input = JSON.parse(Buffer.from(payload.data!).toString('utf8')) as Record<string, unknown>;
    expect(input).toMatchObject({ repo: REPO, issue, replyTarget: { kind: 'github', pullRequest: issue, issue: true } });
    expect(input.pullRequest).toBeUndefined();
    await client.workflow.getHandle(started.unitId!).terminate('seen');
  });
});

describe('HTTP API and MCP: jobs, units, steer, stop, reads', () => {
  let anaJob: string;

  it('jobs: access, model and repository refusals start nothing; an admitted job runs', async () => {
    expect(await problem(await a.api('/jobs', { as: 'bob', body: { text: 'add a test', agent: 'coding' } }))).toMatchObject({
      status: 403,
      refusal: 'agent_restricted',
    });
    expect(await problem(await a.api('/jobs', { as: 'ana', body: { text: 'hi', model: 'anthropic:claude-opus-4-1' } }))).toMatchObject({
      status: 403,
      refusal: 'model_not_allowed',
    });
    const ghost = await a.api('/jobs', { as: 'ana', body: { text: 'look', agent: 'explore', repo: 'acme/ghost', model: models.slow } });
    expect(await problem(ghost)).toMatchObject({ status: 422, refusal: 'repo_not_visible' });
    const started = await a.api('/jobs', { as: 'ana', body: { text: 'think', agent: 'general', model: models.slow } });
    expect(started.status).toBe(202);
    anaJob = ((await started.json()) as { jobId: string }).jobId;
  });

  it("a token reaches only its own person's job: Bob cannot read, steer or stop Ana's; an admin token can", async () => {
    const job = encodeURIComponent(anaJob);
    for (const [method, path, body] of [
      ['GET', `/jobs/${job}`, undefined],
      ['POST', `/jobs/${job}/steer`, { text: 'stop working' }],
      ['POST', `/jobs/${job}/stop`, {}],
    ] as const)
      expect(await problem(await a.api(path, { as: 'bob', method, ...(body ? { body } : {}) }))).toMatchObject({
        status: 403,
        refusal: 'not_requester',
      });
    expect(mcpCode(await a.mcp('bob', 'steer', { id: anaJob, text: 'stop working' }))).toMatchObject({
      isError: true,
      refusal: 'not_requester',
    });
    expect(mcpCode(await a.mcp('bob', 'stop', { id: anaJob }))).toMatchObject({ isError: true, refusal: 'not_requester' });
    expect(await steersOf(anaJob)).toBe(0);
    expect((await runningPhase(anaJob)).outcome).toBeUndefined();
    expect((await a.api(`/jobs/${job}`, { as: 'ops' })).status).toBe(200);
    expect((await a.api(`/jobs/${job}/steer`, { as: 'ana', body: { text: 'be brief' } })).status).toBe(200);
    expect((await a.api(`/jobs/${job}/stop`, { as: 'ops', body: { reason: 'enough' } })).status).toBe(202);
    expect(((await client.workflow.getHandle(anaJob).result()) as RunRecord).outcome).toBe('stopped');
  });

  it('units: admitted as ship (access, model) with a narrowing budget; only their requester steers, stops or reads them', async () => {
    expect(await problem(await a.api('/units', { as: 'bob', body: { repo: REPO, request: 'Add a header' } }))).toMatchObject({
      status: 403,
      refusal: 'agent_restricted',
    });
    const model = await a.api('/units', { as: 'ana', body: { repo: REPO, request: 'Add a header', model: 'anthropic:claude-opus-4-1' } });
    expect(await problem(model)).toMatchObject({ status: 403, refusal: 'model_not_allowed' });
    expect(mcpCode(await a.mcp('bob', 'ship', { repo: REPO, request: 'Add a header' }))).toMatchObject({
      isError: true,
      refusal: 'agent_restricted',
    });
    expect(mcpCode(await a.mcp('bob', 'ask', { text: 'add a test', agent: 'coding' }))).toMatchObject({
      isError: true,
      refusal: 'agent_restricted',
    });
    const started = await a.api('/units', {
      as: 'ana',
      body: { repo: REPO, request: 'Add a header', model: models.slow, budgetMinutes: 20 },
    });
    expect(started.status).toBe(202);
    const { unitId } = (await started.json()) as { unitId: string };
    const unit = encodeURIComponent(unitId);
    for (const [method, path, body] of [
      ['GET', `/units/${unit}`, undefined],
      ['POST', `/units/${unit}/steer`, { text: 'stop working' }],
      ['POST', `/units/${unit}/stop`, {}],
    ] as const)
      expect(await problem(await a.api(path, { as: 'bob', method, ...(body ? { body } : {}) }))).toMatchObject({
        status: 403,
        refusal: 'not_requester',
      });
    // Asking again for the same change steers the unit only for someone who may steer it.
    const cara = await a.api('/units', { as: 'cara', body: { repo: REPO, request: 'Add a header' } });
    expect(await problem(cara)).toMatchObject({ status: 403, refusal: 'not_requester' });
    expect(await steersOf(unitId)).toBe(0);
    const again = await a.api('/units', { as: 'ops', body: { repo: REPO, request: 'Add a header' } });
    expect(await again.json()).toMatchObject({ status: 'steered' }); // an admin token is an operator
    const status = await waitUntil(
      () => runningPhase(`${unitId}/coding-1-1`).catch(() => undefined),
      (found) => found?.phase === 'thinking',
      120_000,
    );
    expect(status!.budget).toMatchObject({ minutes: 20, boundedBy: 'directive' });
    expect((await a.api(`/units/${unit}/stop`, { as: 'ana', body: { reason: 'seen' } })).status).toBe(202);
    expect(((await client.workflow.getHandle(unitId).result()) as UnitRecord).outcome).toBe('stopped');
  });
});

describe('CLI, task children and plans', () => {
  it('CLI ship: an operator restrict does not name is refused, a bad model too; steer and stop are an operator’s', async () => {
    const refused = await a.cli(['ship', 'Add a licence', '--repo', REPO], { asNobody: true });
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('Not started (agent_restricted)') });
    const model = await a.cli(['ship', 'Add a licence', '--repo', REPO, '--model', 'scripted:/etc/passwd']);
    expect(model).toMatchObject({ code: 1, stderr: expect.stringContaining('(model_not_allowed)') });
    const started = await a.cli(['ship', 'Add a licence', '--repo', REPO, '--model', models.slow, '--budget', '25', '--json']);
    expect(started.code).toBe(0);
    const { unitId } = JSON.parse(started.stdout) as { unitId: string };
    const steered = await a.cli(['steer', unitId, 'mention the year'], { asNobody: true });
    expect(steered.code).toBe(0);
    const stopped = await a.cli(['stop', unitId, '--reason', 'seen'], { asNobody: true });
    expect(stopped.code).toBe(0);
    expect(((await client.workflow.getHandle(unitId).result()) as UnitRecord).outcome).toBe('stopped');
  });

  it('a plan starts no unit for a requester who may not use ship', async () => {
    const file = `${a.dir}/plan.yaml`;
    writeFileSync(file, `name: licence\nrepo: ${REPO}\nunits:\n  - key: one\n    request: Add a licence\n`);
    const result = await a.cli(['plan', file, '--wait', '--json'], { asNobody: true });
    const record = JSON.parse(result.stdout) as PlanRecord;
    expect(record).toMatchObject({ outcome: 'failed', endedBy: expect.stringContaining('(agent_restricted)') });
    expect(await exists(`unit:${REPO}:licence-one`)).toBe(false);
  });

  it('task children are admitted as the person: a restricted agent or a model outside the list is refused to the parent', async () => {
    const conductor = (name: string, task: Record<string, unknown>) =>
      a.script(name, [
        { text: 'Delegating.', toolCalls: [{ name: 'task', input: { name: 'look', prompt: 'look around', mode: 'sync', ...task } }] },
        { text: 'Result: {{lastToolResult}}' },
      ]);
    const bob = await slackSays(a, BOB, `agent:conductor model:${conductor('task-bob', { agent_type: 'explore' })} look`);
    const bobRecord = (await client.workflow.getHandle(bob.outcome.runId!).result()) as RunRecord;
    expect(bobRecord.toolCalls).toEqual([expect.objectContaining({ name: 'task', ok: false })]);
    expect(bobRecord.finalText).toContain('restrict.agents.explore');
    expect(bobRecord.children).toEqual([]);
    const model = await slackSays(
      a,
      ANA,
      `agent:conductor model:${conductor('task-model', { agent_type: 'research', model: 'anthropic:claude-opus-4-1' })} look`,
    );
    const modelRecord = (await client.workflow.getHandle(model.outcome.runId!).result()) as RunRecord;
    expect(modelRecord.finalText).toContain('is not one a message may choose');
    expect(modelRecord.children).toEqual([]);
    const ok = await slackSays(
      a,
      ANA,
      `agent:conductor model:${conductor('task-ok', { agent_type: 'research', model: models.hello })} look`,
    );
    const okRecord = (await client.workflow.getHandle(ok.outcome.runId!).result()) as RunRecord;
    expect(okRecord.children).toEqual([expect.objectContaining({ agent: 'research', outcome: 'completed' })]);
  });
});

describe('a deployment whose worker cannot isolate commands (it runs as nobody)', () => {
  it('refuses every shell agent at every door, and still runs one that needs no shell', async () => {
    const slack = await slackSays(b, ANA, `agent:explore model:${models.slow} in ${REPO}: look`);
    await expectRefusedInThread(slack.threadId, slack.outcome, 'sandbox_unavailable');
    const general = await slackSays(b, ANA, `agent:general model:${models.hello} hi`);
    expect(((await client.workflow.getHandle(general.outcome.runId!).result()) as RunRecord).outcome).toBe('completed');
    const job = await b.api('/jobs', { as: 'ana', body: { text: 'look', agent: 'explore', repo: REPO, model: models.slow } });
    expect(await problem(job)).toMatchObject({ status: 503, refusal: 'sandbox_unavailable' });
    const unit = await b.api('/units', { as: 'ana', body: { repo: REPO, request: 'Add a copyright line', model: models.slow } });
    expect(await problem(unit)).toMatchObject({ status: 503, refusal: 'sandbox_unavailable' });
    expect(mcpCode(await b.mcp('ana', 'ship', { repo: REPO, request: 'Add a copyright line' }))).toMatchObject({
      isError: true,
      refusal: 'sandbox_unavailable',
    });
    expect(await exists(taskUnitId(REPO, 'Add a copyright line'))).toBe(false);
    // The orchestrator's unit_start in Ana's DM, and a conductor's explore child.
    const start = b.script('orchestrate-b', [
      { text: 'Starting.', toolCalls: [{ name: 'unit_start', input: { repo: REPO, request: 'Add a greeting', slug: 'b-unit' } }] },
      { text: 'Result: {{lastToolResult}}' },
    ]);
    const dm = await slackSays(b, ANA, `model:${start} start it`, { channel: 'D0ANA' });
    const dmRecord = (await client.workflow.getHandle(dm.outcome.runId!).result()) as RunRecord;
    expect(dmRecord.finalText).toContain('sandbox_unavailable');
    expect(await exists(`unit:${REPO}:b-unit`)).toBe(false);
    const child = b.script('task-b', [
      { text: 'Delegating.', toolCalls: [{ name: 'task', input: { name: 'look', prompt: 'look', mode: 'sync', agent_type: 'explore' } }] },
      { text: 'Result: {{lastToolResult}}' },
    ]);
    const conductor = await slackSays(b, ANA, `agent:conductor model:${child} look`);
    const conductorRecord = (await client.workflow.getHandle(conductor.outcome.runId!).result()) as RunRecord;
    expect(conductorRecord.finalText).toContain('cannot isolate shell commands');
    expect(conductorRecord.children).toEqual([]);
  });

  it('a GitHub comment asking it for a shell agent is refused in the PR', async () => {
    // The shared local GitHub delivers to deployment A; a delivery for B's own PR is signed and sent to B by hand.
    github.commit(REPO, 'feature-b', { 'b.txt': 'b\n' });
    const own = (
      await gh(ANA_GH).openOrUpdatePullRequest({ repo: REPO, head: 'feature-b', base: 'main', title: 'B', body: 'b', effectKey: 'pr-b' })
    ).number!;
    const comment = await gh(ANA_GH).postComment({ repo: REPO, number: own, body: 'for B', effectKey: randomUUID() });
    const payload = {
      action: 'created',
      issue: { number: own, pull_request: { url: 'x' } },
      comment: { id: comment.id, body: `@switchboard agent:explore model:${models.slow} look`, user: { login: 'ana' } },
      repository: { full_name: REPO },
      sender: { login: 'ana' },
    };
    const body = JSON.stringify(payload);
    const deliveryId = randomUUID();
    const response = await fetch(`${b.origin}/webhooks/github`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': deliveryId,
        'x-hub-signature-256': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`,
      },
      body,
    });
    expect(response.status).toBe(202);
    const threadId = `thread:gh:${REPO}#${own}`;
    await expectRefusedInThread(threadId, await outcome(threadId, `github:${deliveryId}`), 'sandbox_unavailable');
    const answers = () => github.state.repo(...(REPO.split('/') as [string, string]))!.issues.get(own)!.comments;
    await waitUntil(
      async () =>
        answers()
          .map((posted) => posted.body)
          .join('\n'),
      (text) => text.includes('cannot isolate shell commands'),
    );
  });

  it('a unit that reaches such a worker anyway (the CLI cannot see its sandbox) refuses itself before any run; a plan starts none', async () => {
    const started = await b.cli(['ship', 'Add a notice', '--repo', REPO, '--model', models.slow, '--json']);
    expect(started.code).toBe(0);
    const { unitId } = JSON.parse(started.stdout) as { unitId: string };
    const record = (await client.workflow.getHandle(unitId).result()) as UnitRecord;
    expect(record).toMatchObject({ outcome: 'failed', rounds: 0, endedBy: expect.stringContaining('cannot isolate shell commands') });
    expect(await exists(`${unitId}/coding-1-1`)).toBe(false);
    // A plan admits its requester on the worker that runs it: no unit starts there.
    const file = `${b.dir}/plan.yaml`;
    writeFileSync(file, `name: notice\nrepo: ${REPO}\nunits:\n  - key: one\n    request: Add a notice\n`);
    const plan = await b.cli(['plan', file, '--wait', '--json']);
    expect(JSON.parse(plan.stdout)).toMatchObject({ outcome: 'failed', endedBy: expect.stringContaining('(sandbox_unavailable)') });
    expect(await exists(`unit:${REPO}:notice-one`)).toBe(false);
  });
});
