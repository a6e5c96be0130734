/**
 * What Switchboard's Slack app needs, in one list, read by the code that uses it: the front end
 * registers its Bolt listeners by these event names (server/slack/front-end.ts), the app manifest
 * `switchboard setup slack` writes is generated from it, `switchboard doctor` checks an installed
 * token's scopes against it, and the local Slack grants exactly these scopes by default, so every
 * Slack test fails if the code calls a method the list does not cover. `app-needs.test.ts` reads
 * the code for Web API calls and keeps `SLACK_METHODS` equal to them.
 */

/** A bot scope and why Switchboard asks for it. */
export interface SlackScopeNeed {
  scope: string;
  why: string;
}

/** Every Slack Web API method Switchboard calls, with the bot scopes it needs for the conversations it works in. */
export const SLACK_METHODS: Readonly<Record<string, readonly string[]>> = {
  // Bolt's start and the outside-service check: any token may call it.
  'auth.test': [],
  'chat.postMessage': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  // A card's metadata (the stop reaction), a thread's root, at-most-once lookups: in public and private channels and DMs.
  'conversations.replies': ['channels:history', 'groups:history', 'im:history'],
  // A plan's unit threads: the top-level message each unit's thread starts from, found again by its marker.
  'conversations.history': ['channels:history', 'groups:history', 'im:history'],
  // A reply in a plan unit's thread that steered or stopped it is acknowledged on the reply.
  'reactions.add': ['reactions:write'],
  // The person's name on cards, records and session pages, not their id.
  'users.info': ['users:read'],
  'files.getUploadURLExternal': ['files:write'],
  'files.completeUploadExternal': ['files:write'],
};

/** Bolt's event names the front end listens to, and the manifest's subscriptions (with their scopes) for each. */
export const SLACK_EVENTS = {
  app_mention: { subscriptions: { app_mention: 'app_mentions:read' } },
  message: { subscriptions: { 'message.channels': 'channels:history', 'message.groups': 'groups:history', 'message.im': 'im:history' } },
  reaction_added: { subscriptions: { reaction_added: 'reactions:read' } },
} as const;

export type SlackEventName = keyof typeof SLACK_EVENTS;

/** Slash commands the front end answers (none yet); each becomes a manifest entry, and the `commands` scope. */
export const SLACK_SLASH_COMMANDS: ReadonlyArray<{ command: string; description: string; usageHint?: string }> = [];

/** Interactive components: the card's Stop button (`block_actions`). */
export const SLACK_INTERACTIVITY = true;

const WHY: Record<string, string> = {
  'app_mentions:read': 'mentions of the app in channels',
  'channels:history': 'messages and thread replies in public channels; reading a card back',
  'groups:history': 'the same in private channels',
  'im:history': 'direct messages to the app',
  'chat:write': 'the status card, answers and refusals',
  'files:write': 'attach_file (the external upload flow)',
  'reactions:read': 'the stop reaction',
  'reactions:write': "acknowledging a reply that steered or stopped a plan's unit",
  'users:read': "people's names on cards, records and session pages",
  commands: 'the slash commands',
};

/** The bot scopes the app needs: those of every method it calls and every event it subscribes to, each once. */
export function slackBotScopes(): SlackScopeNeed[] {
  const scopes = new Set<string>();
  for (const needs of Object.values(SLACK_METHODS)) for (const scope of needs) scopes.add(scope);
  for (const event of Object.values(SLACK_EVENTS)) for (const scope of Object.values(event.subscriptions)) scopes.add(scope);
  if (SLACK_SLASH_COMMANDS.length > 0) scopes.add('commands');
  return [...scopes].sort().map((scope) => ({ scope, why: WHY[scope] ?? 'used by Switchboard' }));
}

/** The Events API subscriptions (`message.im`, …) of the events the front end listens to. */
export function slackBotEvents(): string[] {
  return Object.values(SLACK_EVENTS).flatMap((event) => Object.keys(event.subscriptions));
}
