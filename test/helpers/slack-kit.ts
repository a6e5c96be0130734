import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowNotFoundError } from '@temporalio/client';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { type Worker } from '@temporalio/worker';
import { stringify } from 'yaml';
import { createActivities, type ActivityDeps } from '../../activities';
import { createGitHubIdentities, type GitHubIdentities } from '../../activities/github';
import { createSlackWebClient } from '../../activities/slack';
import { defaultAgentsConfig, type AgentsConfigInput } from '../../agents/config';
import { SlackConfigSchema } from '../../infra/config/slack-section';
import { createLogger } from '../../infra/logger';
import { startLocalSlack, type LocalMessage, type LocalSlack } from '../../emulators/local-slack';
import { createServerApp } from '../../server/app';
import { createSlackFrontEnd, type SlackFrontEnd } from '../../server/slack';
import { threadStateQuery, type RunRecord, type ThreadState } from '../../workflows/contracts';
import { KIT_SCRIPTS } from './scripts';
import { productWorker, sharedEnvironment, uniqueTaskQueue } from './temporal';
import { workerRunStarts } from '../../infra/worker';

export const BOT_TOKEN = 'xoxb-local-test-token';
export const SIGNING_SECRET = 'local-signing-secret';
export const TEAM = 'T0LOCAL';
export const BOT = 'U0SWITCHBOARD';

export interface SlackKit {
  env: TestWorkflowEnvironment;
  taskQueue: string;
  slack: LocalSlack;
  frontEnd: SlackFrontEnd;
  /** Writes a scripted model file and returns its path among the scripted directories, `kit/<name>.yaml` (for `model:scripted:<path>`). */
  script(name: string, turns: unknown[]): string;
  /** The host directory behind `kit/` (the worker's base directory is its parent). */
  scriptsDir: string;
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  /** Polls until `check` is truthy (or fails after `timeoutMs`). */
  until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs?: number): Promise<T>;
  threadState(threadId: string): Promise<ThreadState>;
  /** The run a message started, once the thread has decided on it. */
  runFor(threadId: string, messageId: string): Promise<string>;
  result(runId: string): Promise<RunRecord>;
  /** Our messages in a thread with this metadata event type. */
  marked(channel: string, threadTs: string, eventType: string): LocalMessage[];
  close(): Promise<void>;
}

/**
 * The Slack path end to end: a local Slack, our Express app with the Slack front end
 * mounted, and a worker on the product bundle whose status activities post to the local
 * Slack. Events are signed exactly as Slack signs them.
 */
export async function startSlackKit(
  label: string,
  agents: AgentsConfigInput = {},
  options: {
    allowedModels?: string[];
    /** GitHub credentials (e.g. against the local GitHub); none by default. */ github?: GitHubIdentities;
  } = {},
): Promise<SlackKit> {
  const env = await sharedEnvironment();
  const taskQueue = uniqueTaskQueue(label);
  const dir = mkdtempSync(join(tmpdir(), `switchboard-${label}-`));
  // Scripts apart from the workspaces (under data/), so nothing a run writes can become a script.
  const scripts = join(dir, 'scripts');
  mkdirSync(scripts);
  const logger = createLogger({ level: process.env.SLACK_KIT_LOG ?? 'silent' });
  const slack = await startLocalSlack({
    botToken: BOT_TOKEN,
    team: { id: TEAM, name: 'local' },
    bot: { userId: BOT, botId: 'B0SWITCHBOARD', name: 'switchboard' },
  });
  const agentsConfig = defaultAgentsConfig(agents);
  const identities = options.github ?? createGitHubIdentities({ apiUrl: 'http://127.0.0.1:9/api/v3', gitUrl: 'http://127.0.0.1:9' });
  const deps: ActivityDeps = {
    logger,
    models: { baseDir: dir, scriptedDirs: { [KIT_SCRIPTS]: scripts }, logger },
    // As an operator would allow the team's scripts: by config, never from chat.
    agents: { config: agentsConfig, allowedModels: options.allowedModels ?? [`scripted:${KIT_SCRIPTS}/*`] },
    github: { identities },
    sandbox: {
      dataDir: join(dir, 'data'),
      identityToken: (scope: 'read' | 'write') => identities.tokenFor(scope),
      gitBaseUrl: identities.gitUrl,
    },
    units: { client: env.client, taskQueue },
    runStarts: workerRunStarts(env.nativeConnection, 'default'),
    slack: {
      client: createSlackWebClient({ token: BOT_TOKEN, apiUrl: slack.apiUrl }),
      namespace: 'default',
      webUiBaseUrl: 'http://127.0.0.1:8233',
    },
  };
  const activities = createActivities(deps);
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  const startWorker = async () => {
    if (worker) return;
    worker = await productWorker(env, taskQueue, activities);
    running = worker.run();
  };
  const stopWorker = async () => {
    worker?.shutdown();
    await running;
    worker = undefined;
  };
  await startWorker();

  const frontEnd = createSlackFrontEnd({
    client: env.client,
    taskQueue,
    logger,
    secrets: { botToken: BOT_TOKEN, signingSecret: SIGNING_SECRET },
    config: { slack: SlackConfigSchema.parse({ apiUrl: slack.apiUrl }), agents: agentsConfig },
  });
  await frontEnd.start();
  const app = createServerApp({
    client: env.client,
    logger,
    mounts: [{ path: '/', handler: frontEnd.router! }],
    health: { namespace: 'default', taskQueue, pingTemporal: async () => undefined, workerState: () => worker?.getState() },
  });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  slack.deliverTo(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`, SIGNING_SECRET);

  const until: SlackKit['until'] = async (check, what, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await delay(100);
    }
  };
  const threadState = (threadId: string) => env.client.workflow.getHandle(threadId).query(threadStateQuery);
  return {
    env,
    taskQueue,
    slack,
    frontEnd,
    startWorker,
    stopWorker,
    until,
    threadState,
    scriptsDir: scripts,
    script(name, turns) {
      writeFileSync(join(scripts, `${name}.yaml`), stringify({ turns }));
      return `${KIT_SCRIPTS}/${name}.yaml`;
    },
    runFor: (threadId, messageId) =>
      until(async () => {
        // The ack comes before the signal lands, so the thread may not exist yet.
        const state = await threadState(threadId).catch((error: unknown) => {
          if (error instanceof WorkflowNotFoundError) return undefined;
          throw error;
        });
        const outcome = state?.outcomes.find((entry) => entry.messageId === messageId);
        if (outcome && outcome.kind !== 'run') throw new Error(`the message was not run: ${JSON.stringify(outcome)}`);
        return outcome?.runId;
      }, `a run for ${messageId}`),
    result: (runId) => env.client.workflow.getHandle(runId).result() as Promise<RunRecord>,
    marked: (channel, threadTs, eventType) =>
      slack.state.thread(channel, threadTs).filter((message) => message.metadata?.event_type === eventType),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await frontEnd.stop();
      await stopWorker();
      await slack.close();
      // Deleting the workspaces ends their sandbox holders.
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
