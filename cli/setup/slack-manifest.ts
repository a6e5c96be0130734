import { stringify } from 'yaml';
import { SLACK_INTERACTIVITY, SLACK_SLASH_COMMANDS, slackBotEvents, slackBotScopes } from '../../activities/slack/app-needs';

export interface SlackManifestOptions {
  /** The app's name in Slack (and its bot's display name). */
  name: string;
  /** Where Slack reaches this deployment (`http.publicUrl`); unused in Socket Mode. */
  publicUrl?: string;
  /** `slack.eventsPath`: events, interactivity and slash commands all arrive there. */
  eventsPath: string;
  mode: 'http' | 'socket';
}

/**
 * The Slack app manifest for this deployment, generated from the app's one list of needs
 * (activities/slack/app-needs.ts): the bot scopes of every method and event the code uses, the
 * event subscriptions the front end listens to, interactivity for the Stop button, the slash
 * commands; request URLs at `publicUrl` + `eventsPath` (none in Socket Mode).
 */
export function slackManifest(options: SlackManifestOptions): Record<string, unknown> {
  const http = options.mode === 'http';
  if (http && !options.publicUrl) throw new Error('an HTTP-mode manifest needs the public URL Slack sends events to');
  const requestUrl = http ? `${options.publicUrl!.replace(/\/+$/, '')}${options.eventsPath}` : undefined;
  const at = requestUrl ? { request_url: requestUrl } : {};
  return {
    _metadata: { major_version: 1, minor_version: 1 },
    display_information: { name: options.name, description: "Runs the team's agents: ask in a channel, a thread or a DM" },
    features: {
      app_home: { home_tab_enabled: false, messages_tab_enabled: true, messages_tab_read_only_enabled: false },
      bot_user: { display_name: options.name, always_online: true },
      ...(SLACK_SLASH_COMMANDS.length > 0
        ? {
            slash_commands: SLACK_SLASH_COMMANDS.map((command) => ({
              command: command.command,
              ...(requestUrl ? { url: requestUrl } : {}),
              description: command.description,
              ...(command.usageHint ? { usage_hint: command.usageHint } : {}),
              should_escape: false,
            })),
          }
        : {}),
    },
    oauth_config: { scopes: { bot: slackBotScopes().map((need) => need.scope) } },
    settings: {
      event_subscriptions: { ...at, bot_events: slackBotEvents() },
      interactivity: { is_enabled: SLACK_INTERACTIVITY, ...at },
      org_deploy_enabled: false,
      socket_mode_enabled: !http,
      token_rotation_enabled: false,
    },
  };
}

/** The manifest as YAML, each scope commented with why it is asked for. */
export function slackManifestYaml(options: SlackManifestOptions): string {
  const why = new Map(slackBotScopes().map((need) => [need.scope, need.why]));
  const text = stringify(slackManifest(options), { lineWidth: 0 });
  // Scopes are the only list items with a colon (`chat:write`); events and URLs have none or are not items.
  const commented = text.replace(/^(\s+- )(\S+:\S+)$/gm, (line, _indent: string, scope: string) =>
    why.has(scope) ? `${line}   # ${why.get(scope)}` : line,
  );
  return `# The Slack app manifest of this Switchboard deployment, written by \`npx switchboard setup slack\`.\n# Generated from the code's own list (activities/slack/app-needs.ts): regenerate it rather than edit it.\n${commented}`;
}
