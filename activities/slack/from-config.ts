import { type SwitchboardConfig } from '../../infra/config/schema';
import { type StatusActivityDeps } from '.';
import { createSlackWebClient, type SlackWebClient } from './slack-client';

/**
 * Slack delivery for the status activities when a bot token (SLACK_BOT_TOKEN) is given;
 * undefined otherwise, and Slack targets are logged instead.
 */
export function slackStatusDepsFromConfig(config: SwitchboardConfig, botToken: string | undefined): StatusActivityDeps['slack'] {
  if (!botToken) return undefined;
  let client: SlackWebClient | undefined;
  const { embedded } = config.temporal;
  const webUiBaseUrl =
    config.temporal.uiUrl ?? (!config.temporal.address && embedded.ui ? `http://${embedded.ip}:${embedded.uiPort}` : undefined);
  return {
    client: () =>
      (client ??= createSlackWebClient({ token: botToken, apiUrl: config.slack.apiUrl, timeoutMs: config.slack.requestTimeoutMs })),
    namespace: config.temporal.namespace,
    ...(webUiBaseUrl ? { webUiBaseUrl } : {}),
  };
}
