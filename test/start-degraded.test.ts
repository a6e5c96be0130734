import { execFile } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import { startLocalSlack, type LocalSlack } from '../emulators/local-slack';
import { projectRoot } from '../infra/paths';
import { type HealthReport } from '../server/health';
import { freePort } from './helpers/ports';
import { spawnSwitchboard, type SwitchboardProcess } from './helpers/switchboard-process';
import { testTemporalAddress, uniqueTaskQueue } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(120_000);
const run = promisify(execFile);

const BOT_TOKEN = 'xoxb-degraded-test';
const SIGNING_SECRET = 'slack-signing-secret';
const WEBHOOK_SECRET = 'github-webhook-secret';
const READ_TOKEN = 'ghp_read';

/**
 * `npm start` with Slack, GitHub and a model API all down: the process serves anyway
 * (health degraded with the reasons, GitHub webhooks and CLI runs work), and Slack and
 * GitHub come back on their own once they answer. Only Temporal is needed.
 */
describe('a start with the outside services down', () => {
  const taskQueue = uniqueTaskQueue('degraded');
  let dir: string;
  let app: SwitchboardProcess;
  let base: string;
  let slackPort: number;
  let githubPort: number;
  let slack: LocalSlack | undefined;
  let github: LocalGitHub | undefined;
  let connection: Connection;
  let client: Client;
  const started: string[] = [];
  const health = async () => (await (await fetch(`${base}/healthz`)).json()) as HealthReport;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-degraded-'));
    writeFileSync(join(dir, 'switchboard.yaml'), 'externalServices:\n  retryInitialMs: 200\n  retryMaxMs: 1000\n');
    // Nothing listens on these ports yet: the services are unreachable.
    [slackPort, githubPort] = [await freePort(), await freePort()];
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = spawnSwitchboard({
      env: {
        SWITCHBOARD_CONFIG: join(dir, 'switchboard.yaml'),
        TEMPORAL_ADDRESS: testTemporalAddress(),
        SWITCHBOARD_TASK_QUEUE: taskQueue,
        SWITCHBOARD_DATA_DIR: join(dir, 'data'),
        PORT: String(port),
        LOG_LEVEL: 'info',
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: `http://127.0.0.1:${slackPort}/api/`,
        GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET,
        GITHUB_READ_TOKEN: READ_TOKEN,
        GITHUB_API_URL: `http://127.0.0.1:${githubPort}/api/v3`,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${await freePort()}`,
      },
    });
    connection = await Connection.connect({ address: testTemporalAddress() });
    client = new Client({ connection });
    await waitUntil(health, (report) => report.ok, 60_000);
  });

  afterAll(async () => {
    await app?.stop();
    for (const id of started)
      await client?.workflow
        .getHandle(id)
        .terminate('test over')
        .catch(() => undefined);
    await connection?.close();
    await slack?.close();
    await github?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves with /healthz degraded, naming each service that is down and why', async () => {
    const report = await waitUntil(health, (r) => ['slack', 'github', 'anthropic'].every((name) => r.services[name]?.state === 'degraded'));
    expect(report).toMatchObject({ ok: true, status: 'degraded', temporal: 'ok', worker: 'running' });
    expect(report.services.slack.reason).toMatch(
      new RegExp(`^Slack API at http://127\\.0\\.0\\.1:${slackPort}/api/ is unreachable \\(.*ECONNREFUSED`),
    );
    expect(report.services.github.reason).toMatch(/^GitHub at http:\/\/127\.0\.0\.1:\d+\/api\/v3 is unreachable \(.*ECONNREFUSED/);
    expect(report.services.anthropic.reason).toMatch(/^Anthropic at http:\/\/127\.0\.0\.1:\d+ is unreachable/);
    expect(report.reason).toMatch(/slack degraded: Slack API at .* is unreachable/);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    // Slack's deliveries are refused until auth.test passes, so Slack redelivers them.
    const early = await fetch(`${base}/slack/events`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(early.status).toBe(503);
  });

  it('still takes GitHub webhooks (refusing a trigger whose actor GitHub cannot vouch for) and runs from the CLI', async () => {
    const repo = `acme/degraded-${randomUUID().slice(0, 8)}`;
    const body = JSON.stringify({
      action: 'created',
      issue: { number: 3, pull_request: { url: 'x' } },
      comment: { id: 1, body: '@switchboard please look', user: { login: 'alice' } },
      repository: { full_name: repo },
      sender: { login: 'alice' },
    });
    const threadId = `thread:gh:${repo}#3`;
    const answer = await fetch(`${base}/webhooks/github`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`,
      },
    });
    // Verified and answered; with GitHub down the actor's role cannot be read, so nothing starts (fail closed).
    expect(answer.status).toBe(202);
    expect(await answer.json()).toEqual({ ok: true, refused: 'actor_unverified' });
    await expect(client.workflow.getHandle(threadId).describe()).rejects.toThrow(/not found/i);

    const { stdout } = await run(
      process.execPath,
      [join(projectRoot(), 'bin', 'switchboard.js'), 'ask', '--model', 'scripted:examples/hello.yaml', 'say hello'],
      {
        cwd: projectRoot(),
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TEMPORAL_ADDRESS: testTemporalAddress(), SWITCHBOARD_TASK_QUEUE: taskQueue },
        timeout: 60_000,
      },
    );
    expect(stdout).toContain('outcome: completed');
    expect(stdout).toContain('Hello from Switchboard. You asked: say hello');
    started.push(/^thread (\S+)$/m.exec(stdout)![1]);
  });

  it('brings Slack and GitHub back by themselves once they answer, through a Slack that fails first', async () => {
    slack = await startLocalSlack({
      botToken: BOT_TOKEN,
      signingSecret: SIGNING_SECRET,
      port: slackPort,
      eventsUrl: `${base}/slack/events`,
    });
    slack.faults.serverErrors('auth.test', 1_000_000);
    const failing = await waitUntil(health, (r) => /answered HTTP 503/.test(r.services.slack?.reason ?? ''));
    expect(failing.services.slack).toMatchObject({ state: 'degraded', reason: `Slack API at ${slack.apiUrl} answered HTTP 503` });

    slack.faults.clear();
    github = await startLocalGitHub({ tokens: { read: [READ_TOKEN], write: [] }, port: githubPort });
    const back = await waitUntil(health, (r) => r.services.slack?.state === 'up' && r.services.github?.state === 'up');
    expect(back.services.slack).toMatchObject({ failures: 0, upSince: expect.any(String) });
    // The model API is still down, so the process as a whole stays degraded, for that reason only.
    expect(back).toMatchObject({ ok: true, status: 'degraded', reason: expect.stringMatching(/^anthropic degraded: Anthropic at /) });
    expect(github.state.requests).toContainEqual({ method: 'GET', path: '/rate_limit' });

    // Events now reach their thread.
    const { message, deliveries } = await slack.userSays({ channel: 'C1', user: 'U1', text: `<@${slack.bot.userId}> hello` });
    expect(deliveries.map((d) => d.result.status)).toEqual([200, 200]);
    const threadId = `thread:slack:${slack.team.id}:C1:${message.ts}`;
    started.push(threadId);
    await waitUntil(
      () => client.workflow.getHandle(threadId).describe(),
      (d) => d.type === 'threadWorkflow',
    );
  });
});
