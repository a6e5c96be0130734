import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { slackThreadId } from '../../server/slack/event-routing';
import { startDevServer, type DevServer } from '../../infra/dev-server';
import { startLocalGitHub, type LocalGitHub } from '../local-github';
import { startLocalCi, type LocalCi } from '../local-github/ci';
import { filesFromFolder } from '../local-github/seed';
import { startLocalSlack, type LocalSlack } from '../local-slack';
import { projectRoot } from '../../infra/paths';
import { resolveTemporalBinary } from '../../infra/temporal-binaries';
import { stopUnits, waitUntilNoneUse } from './cleanup';
import { followThread, webUiLinks, type FollowedWorkflow } from './follow';
import { CODEC_PATH } from '../../infra/codec-endpoint';
import { SessionLinks } from '../../infra/session-links';
import { writeDemoConfig } from './config-file';
import { portFor } from './ports';
import { spawnProduct, waitHealthy, type ProductProcess } from './product';
import { playIssueStory, type IssueStoryReport } from './issue-story';
import { waitForReady, type ReadyReport } from './ready';
import { DEMO, fullRepoName } from './session';

export interface DemoOptions {
  /** An existing Temporal (the test suite's); by default the demo starts the embedded one, Web UI on. */
  temporalAddress?: string;
  taskQueue?: string;
  /** Preferred ports; a busy one is replaced by a free one. Unset ones are picked by the OS. */
  ports?: { temporal?: number; ui?: number; http?: number; slack?: number; github?: number };
  /** Where progress lines go (default: nowhere). */
  print?: (line: string) => void;
  /** Aborting it while the demo starts stops what was started and rejects. */
  signal?: AbortSignal;
  /** More environment for Switchboard's process (a test adds API tokens). */
  env?: Record<string, string>;
}

export type { ReadyReport } from './ready';
export type { IssueStoryReport } from './issue-story';

export interface Demo {
  slack: LocalSlack;
  github: LocalGitHub;
  ci: LocalCi;
  client: Client;
  /** The read-only page of the local Slack. */
  slackPageUrl: string;
  /** The Temporal Web UI, when this demo started it. */
  webUiUrl?: string;
  /** The Web UI's list of every workflow of the conversation. */
  threadQueryUrl?: string;
  threadId: string;
  /** The Slack thread (the mention's ts). */
  threadTs: string;
  /** Every workflow of the conversation seen so far, in the order they appeared. */
  workflows: FollowedWorkflow[];
  /** Switchboard's log (the product process's stdout and stderr), inside `dir`. */
  logFile: string;
  /** The demo's temp folder (config, data, workspaces, Temporal's SQLite file), removed by `stop()`. */
  dir: string;
  /** Switchboard's process. */
  productPid: number;
  /** The HTTP server's base URL. */
  appUrl: string;
  /** A workflow's live session page, signed with the demo's session key. */
  sessionUrl(workflowId: string): string;
  /** The generated read token of the local GitHub, to read the PR and clone the branch by hand. */
  readToken: string;
  /** Ana's own token on the local GitHub (write scope, acting as `ana`): to merge the ready PR as a person would. */
  maintainerToken: string;
  /** Resolves when the ready report is in the Slack thread; rejects if Switchboard exits or `timeoutMs` passes first. */
  ready(timeoutMs?: number): Promise<ReadyReport>;
  /**
   * The second story, once the first PR is ready: Ana merges it, files an issue and assigns it to
   * the bot; resolves when the issue's unit reports its PR ready on the issue (emulators/demo/issue-story.ts).
   */
  issueStory(firstPullRequest: number, timeoutMs?: number): Promise<IssueStoryReport>;
  /** Stops the unit (so its workspaces are released), then Switchboard, the local services and Temporal; removes the temp folder. */
  stop(): Promise<void>;
}

const NAMESPACE = 'default';
/** The demo's page links live as long as the product's default (`sessions.linkTtlHours`). */
const DEMO_LINK_TTL_MS = 7 * 24 * 3_600_000;

/**
 * `npm run demo` without the terminal: the embedded Temporal (or a given one), the local
 * GitHub with a repository whose test fails and a CI that runs it, the local Slack with its
 * web page, and Switchboard itself (`dist/infra/main.js`, as `npm start` runs it) configured
 * to reach them, with secrets generated here. Then Ana mentions the bot in #dev and the
 * scripted models (`examples/demo/session.yaml`) play the ship unit. Everything lives in a
 * temp folder that `stop()` removes.
 */
export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
  const print = options.print ?? (() => undefined);
  const root = projectRoot();
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-demo-'));
  // Run first to last by stopAll; each piece puts its stop in front as it starts.
  const stops: Array<() => Promise<void>> = [
    async () => {
      // A sandbox whose unit did not settle ends by itself once its folder is gone (within seconds).
      rmSync(dir, { recursive: true, force: true });
      const left = await waitUntilNoneUse(dir, 15_000);
      if (left.length > 0) print(`Still running after the stop (not started by the demo itself):\n${left.join('\n')}`);
    },
  ];
  const stopAll = async () => {
    for (const stop of stops.splice(0)) await stop().catch((error: unknown) => print(`(while stopping: ${(error as Error).message})`));
  };
  try {
    return await assemble();
  } catch (error) {
    await stopAll();
    throw error;
  }

  async function assemble(): Promise<Demo> {
    const checkpoint = () => {
      if (options.signal?.aborted) throw new Error('interrupted while starting');
    };
    const secret = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;
    const secrets = {
      SLACK_BOT_TOKEN: secret('xoxb-demo-'),
      SLACK_SIGNING_SECRET: secret(''),
      GITHUB_READ_TOKEN: secret('ghs_read_'),
      GITHUB_WRITE_TOKEN: secret('ghs_write_'),
      GITHUB_WEBHOOK_SECRET: secret(''),
      // Signs the session page links the cards and this terminal show.
      SWITCHBOARD_SESSION_SECRET: randomBytes(32).toString('hex'),
    };
    const httpPort = await portFor(options.ports?.http);
    const appUrl = `http://127.0.0.1:${httpPort}`;

    let temporal: { address: string; uiUrl?: string; server?: DevServer };
    if (options.temporalAddress) temporal = { address: options.temporalAddress };
    else {
      print('Starting the embedded Temporal (dev server, Web UI on) ...');
      const server = await startDevServer({
        binary: resolveTemporalBinary('cli').path,
        port: await portFor(options.ports?.temporal),
        uiPort: await portFor(options.ports?.ui),
        ui: true,
        // The demo's Switchboard serves the codec endpoint: the Web UI shows claim-checked payloads decoded.
        uiCodecEndpoint: `${appUrl}${CODEC_PATH}`,
        dbFile: join(dir, 'temporal.sqlite'),
        readyTimeoutMs: 90_000,
        // A Ctrl-C in the terminal reaches the demo, which stops the unit before Temporal.
        detached: true,
      });
      stops.unshift(() => server.stop());
      temporal = { address: server.address, ...(server.uiUrl ? { uiUrl: server.uiUrl } : {}), server };
    }
    checkpoint();
    const connection = await Connection.connect({ address: temporal.address });
    stops.unshift(() => connection.close());
    const client = new Client({ connection, namespace: NAMESPACE });

    checkpoint();
    const slack = await startLocalSlack({
      botToken: secrets.SLACK_BOT_TOKEN,
      signingSecret: secrets.SLACK_SIGNING_SECRET,
      eventsUrl: `${appUrl}/slack/events`,
      team: DEMO.team,
      bot: DEMO.bot,
      channels: { [DEMO.channel.id]: DEMO.channel.name },
      users: [DEMO.person],
      port: await portFor(options.ports?.slack),
    });
    stops.unshift(() => slack.close());

    // Ana's own GitHub token (not Switchboard's): she merges the PR once it is ready.
    const maintainerToken = secret('ghp_ana_');
    const github = await startLocalGitHub({
      tokens: { read: [secrets.GITHUB_READ_TOKEN], write: [secrets.GITHUB_WRITE_TOKEN, maintainerToken] },
      logins: { [maintainerToken]: DEMO.person.name },
      webhookUrl: `${appUrl}/webhooks/github`,
      webhookSecret: secrets.GITHUB_WEBHOOK_SECRET,
      port: await portFor(options.ports?.github),
    });
    stops.unshift(() => github.close());
    // Ana may push and assign: the door reads her role from GitHub before her issue starts anything.
    github.createRepo(DEMO.repo.owner, DEMO.repo.name, filesFromFolder(join(root, DEMO.repo.folder)), {
      collaborators: { [DEMO.person.name]: 'write' },
    });
    const ci = startLocalCi(github, { command: DEMO.ciCommand });
    stops.unshift(() => ci.close());

    checkpoint();
    const configFile = writeDemoConfig(dir, {
      root,
      temporal: { ...temporal, taskQueue: options.taskQueue ?? 'switchboard', namespace: NAMESPACE },
      httpPort,
      github,
      slack,
    });
    const logFile = join(dir, 'switchboard.log');
    print('Starting Switchboard (worker and HTTP server) ...');
    const product: ProductProcess = spawnProduct({
      projectRoot: root,
      logFile,
      // The demo's own secrets only: never a developer's switchboard.env from the working directory.
      env: { ...options.env, SWITCHBOARD_CONFIG: configFile, SWITCHBOARD_ENV_FILE: join(dir, 'switchboard.env'), ...secrets },
    });
    const pages = new SessionLinks(secrets.SWITCHBOARD_SESSION_SECRET, DEMO_LINK_TTL_MS, appUrl);
    stops.unshift(() => product.stop());
    await waitHealthy(`${appUrl}/healthz`, product, 60_000, options.signal);

    checkpoint();
    const links = temporal.uiUrl ? webUiLinks(temporal.uiUrl, NAMESPACE) : undefined;
    print(`Local Slack (read-only page, live): ${slack.url}/`);
    if (temporal.uiUrl) print(`Temporal Web UI: ${temporal.uiUrl}`);
    print(`Local GitHub: ${github.gitUrl} (git clone ${github.gitUrl}/${fullRepoName}.git; REST ${github.apiUrl})`);

    const mention = DEMO.mention(DEMO.bot.userId);
    const { message: asked } = await slack.userSays({ channel: DEMO.channel.id, user: DEMO.person.id, text: mention });
    const threadId = slackThreadId(DEMO.team.id, DEMO.channel.id, asked.ts);
    print(`${DEMO.person.name} in #${DEMO.channel.name}: ${mention.replace(`<@${DEMO.bot.userId}>`, `@${DEMO.bot.name}`)}`);
    if (links) print(`Every workflow of this conversation: ${links.list(`Thread="${threadId}"`)}`);

    // Every workflow of a conversation, as it appears: its session page and its Web UI page.
    const follow = (thread: string) => {
      const followed = followThread({
        client,
        namespace: NAMESPACE,
        threadId: thread,
        ...(temporal.uiUrl ? { uiUrl: temporal.uiUrl } : {}),
        onNew: (workflow) =>
          print(
            `  ${describe(workflow).padEnd(12)} ${workflow.workflowId}\n               session: ${pages.url(workflow.workflowId)}` +
              (workflow.link ? `\n               Temporal: ${workflow.link}` : ''),
          ),
      });
      stops.unshift(() => followed.stop());
      return followed;
    };
    const follower = follow(threadId);
    // First of all, while Switchboard still runs: the unit settles and releases its workspaces
    // (their sandboxes end with them).
    const threads = [threadId];
    stops.unshift(async () => {
      for (const thread of threads) await stopUnits(client, thread);
    });

    return {
      slack,
      github,
      ci,
      client,
      slackPageUrl: `${slack.url}/`,
      ...(temporal.uiUrl ? { webUiUrl: temporal.uiUrl } : {}),
      ...(links ? { threadQueryUrl: links.list(`Thread="${threadId}"`) } : {}),
      threadId,
      threadTs: asked.ts,
      workflows: follower.seen,
      logFile,
      dir,
      productPid: product.pid,
      appUrl,
      sessionUrl: (workflowId) => pages.url(workflowId),
      readToken: secrets.GITHUB_READ_TOKEN,
      maintainerToken,
      ready: (timeoutMs = 120_000) =>
        waitForReady({ slack, channel: DEMO.channel.id, threadTs: asked.ts, workflows: follower.seen, product, timeoutMs }),
      issueStory: (firstPullRequest, timeoutMs = 120_000) =>
        playIssueStory({
          github,
          maintainerToken,
          product,
          firstPullRequest,
          onThread: (thread) => {
            threads.push(thread);
            follow(thread);
          },
          print,
          timeoutMs,
        }),
      stop: stopAll,
    };
  }
}

function describe(workflow: FollowedWorkflow): string {
  if (workflow.kind === 'run') return `${workflow.agent ?? ''} run`.trim();
  return workflow.kind === 'unit' ? 'ship unit' : workflow.kind;
}
