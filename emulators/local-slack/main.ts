import { startLocalSlack } from '.';

/**
 * The offline demo's Slack: `node dist/emulators/local-slack/main.js`. Uses the same
 * SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET as Switchboard and delivers events to
 * LOCAL_SLACK_EVENTS_URL (default http://127.0.0.1:3000/slack/events).
 */
async function main(): Promise<void> {
  const botToken = process.env.SLACK_BOT_TOKEN;
  const signingSecret = process.env.SLACK_SIGNING_SECRET;
  if (!botToken || !signingSecret) {
    console.error('Set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (the same values Switchboard gets).');
    process.exitCode = 1;
    return;
  }
  const slack = await startLocalSlack({
    botToken,
    signingSecret,
    port: Number(process.env.LOCAL_SLACK_PORT ?? 3100),
    eventsUrl: process.env.LOCAL_SLACK_EVENTS_URL ?? 'http://127.0.0.1:3000/slack/events',
  });
  console.log(`Local Slack on ${slack.url} (Web API ${slack.apiUrl}); bot user ${slack.bot.userId}; watch it at ${slack.url}/`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void slack.close());
}

if (require.main === module) void main();
