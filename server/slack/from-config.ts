import { type Client } from '@temporalio/client';
import { readSecret, resolveConfigPath, type LoadedConfig } from '../../infra/config';
import { type Logger } from '../../infra/logger';
import { type DoorAdmission } from '../../infra/door-admission';
import { createSlackFrontEnd, type SlackFrontEnd } from './front-end';

/**
 * The Slack front end when its secrets are set (SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET,
 * or with SLACK_APP_TOKEN in Socket Mode); otherwise undefined, and the log says why.
 */
export function slackFrontEndFromConfig(
  loaded: LoadedConfig,
  client: Client,
  logger: Logger,
  admission?: Pick<DoorAdmission, 'facts'>,
): SlackFrontEnd | undefined {
  const { config } = loaded;
  const ready =
    readSecret('slackBotToken') && (config.slack.mode === 'socket' ? readSecret('slackAppToken') : readSecret('slackSigningSecret'));
  if (!ready) {
    logger.info(
      config.slack.mode === 'socket'
        ? 'Slack is off: set SLACK_BOT_TOKEN and SLACK_APP_TOKEN for Socket Mode'
        : 'Slack is off: set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET to receive events',
    );
    return undefined;
  }
  return createSlackFrontEnd({
    client,
    taskQueue: config.temporal.taskQueue,
    logger,
    ...(admission ? { facts: admission.facts } : {}),
    config: {
      slack: config.slack,
      agents: config.agents,
      ...(config.agents.customAgentsDir ? { customAgentsDir: resolveConfigPath(loaded, config.agents.customAgentsDir) } : {}),
    },
  });
}
