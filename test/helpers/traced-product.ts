import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalSlack, type LocalMessage, type LocalSlack } from '../../emulators/local-slack';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver';
import { freePort } from './ports';
import { spawnSwitchboard, type SwitchboardProcess } from './switchboard-process';
import { testTemporalAddress, uniqueTaskQueue } from './temporal';
import { waitUntil } from './wait';

export const TRACED_BOT_TOKEN = 'xoxb-traces-bot-token-0123456789';
export const TRACED_SIGNING_SECRET = 'traces-signing-secret-0123456789';
export const TRACED_CHANNEL = 'C0TRACES';

export interface TracedProduct {
  /** The server's base URL. */
  url: string;
  /** The product's data dir. */
  dataDir: string;
  receiver: OtlpReceiver;
  slack: LocalSlack;
  product: SwitchboardProcess;
  taskQueue: string;
  /** Alice says `text` to the bot in the channel (a new thread) or, with `threadTs`, replies in its thread. */
  say(text: string, threadTs?: string): Promise<LocalMessage>;
  /** Waits for a message of the bot in the thread whose text starts with `prefix`, the `nth` such (from 1). */
  answer(threadTs: string, prefix: string, nth?: number): Promise<LocalMessage>;
  close(): Promise<void>;
}

/**
 * `npm start`'s process (from the project folder, so `scripted:examples/…` is found) with traces
 * exported over OTLP to a local receiver, and the local Slack it answers in.
 */
export async function startTracedProduct(
  name: string,
  options: { otel?: Record<string, string>; config?: Record<string, unknown>; env?: Record<string, string> } = {},
): Promise<TracedProduct> {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  if (options.config) writeFileSync(join(dir, 'switchboard.yaml'), stringify(options.config));
  const receiver = await startOtlpReceiver();
  const port = await freePort();
  const slack = await startLocalSlack({
    botToken: TRACED_BOT_TOKEN,
    signingSecret: TRACED_SIGNING_SECRET,
    eventsUrl: `http://127.0.0.1:${port}/slack/events`,
  });
  const taskQueue = uniqueTaskQueue(name);
  const product = spawnSwitchboard({
    env: {
      TEMPORAL_ADDRESS: testTemporalAddress(),
      SWITCHBOARD_TASK_QUEUE: taskQueue,
      SWITCHBOARD_DATA_DIR: join(dir, 'data'),
      PORT: String(port),
      SLACK_BOT_TOKEN: TRACED_BOT_TOKEN,
      SLACK_SIGNING_SECRET: TRACED_SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      SWITCHBOARD_MODEL: 'scripted:examples/hello.yaml',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '200',
      OTEL_SERVICE_NAME: 'switchboard-traces-test',
      ...(options.config ? { SWITCHBOARD_CONFIG: join(dir, 'switchboard.yaml') } : {}),
      ...options.otel,
      ...options.env,
    },
  });
  await waitUntil(
    () =>
      fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.status,
        () => 0,
      ),
    (status) => status === 200,
    90_000,
  );
  return {
    url: `http://127.0.0.1:${port}`,
    dataDir: join(dir, 'data'),
    receiver,
    slack,
    product,
    taskQueue,
    async say(text, threadTs) {
      const said = await slack.userSays({
        channel: TRACED_CHANNEL,
        user: 'U0ALICE',
        text: threadTs ? text : `<@${slack.bot.userId}> ${text}`,
        ...(threadTs ? { threadTs } : {}),
      });
      return said.message;
    },
    async answer(threadTs, prefix, nth = 1) {
      const found = await waitUntil(
        async () => slack.state.thread(TRACED_CHANNEL, threadTs).filter((message) => message.text.startsWith(prefix)),
        (messages) => messages.length >= nth,
        90_000,
      );
      return found[nth - 1];
    },
    async close() {
      await product.stop();
      await slack.close();
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
