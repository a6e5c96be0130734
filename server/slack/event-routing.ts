import type { ThreadInput, ThreadMessage } from '../../workflows/contracts';

/** The fields of a Slack `message` / `app_mention` event Switchboard reads. */
export interface SlackMessageEvent {
  type: string;
  channel: string;
  user?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  channel_type?: string;
  subtype?: string;
  bot_id?: string;
  edited?: unknown;
}

export interface RoutingContext {
  teamId: string;
  /** The Events API `event_id`: the thread's dedupe key for this message. */
  eventId: string;
  /** The app's own user id (from `auth.test`): its mentions are stripped, its messages ignored. */
  botUserId?: string;
}

/** What to do with one message event. */
export type RoutedSlackMessage =
  /** Signal-with-start the thread (a mention or a DM may begin one). */
  | { kind: 'start'; threadId: string; input: ThreadInput; message: ThreadMessage }
  /** Signal the thread only if it exists (a reply in a thread that may not be Switchboard's). */
  | { kind: 'continue'; threadId: string; message: ThreadMessage }
  /** `malformed`: the ids a thread id is built from do not look like Slack's (logged as a warning). */
  | { kind: 'ignore'; why: string; malformed?: true };

/** Subtypes that are still a person writing; every other subtype (edits, deletes, joins, bots) is ignored. */
const PERSON_SUBTYPES = new Set(['thread_broadcast', 'file_share']);

// Slack's own shapes: ids are short upper-case alphanumerics (T…, C…, D…), a ts is
// `<seconds>.<sequence>`. Anything else never becomes part of a workflow id.
const SLACK_ID = /^[A-Z0-9]{2,32}$/;
const SLACK_TS = /^\d{1,12}\.\d{1,8}$/;

/** Why these values cannot name a thread, or undefined when they are Slack-shaped. */
export function slackIdProblem(teamId: unknown, channel: unknown, threadTs: unknown): string | undefined {
  if (typeof teamId !== 'string' || !SLACK_ID.test(teamId)) return 'team id is not a Slack id';
  if (typeof channel !== 'string' || !SLACK_ID.test(channel)) return 'channel is not a Slack id';
  if (typeof threadTs !== 'string' || !SLACK_TS.test(threadTs)) return 'ts is not a Slack timestamp';
  return undefined;
}

/** `thread:slack:<team>:<channel>:<thread_ts>`, the thread workflow's id. */
export function slackThreadId(teamId: string, channel: string, threadTs: string): string {
  return `thread:slack:${teamId}:${channel}:${threadTs}`;
}

/**
 * Decides what a `message` or `app_mention` event means: a mention in a channel or a
 * message in a private DM starts (or continues) a thread; a reply in a thread continues
 * it and is addressed to its running run; everything else is ignored with a reason.
 */
export function routeSlackMessage(event: SlackMessageEvent, context: RoutingContext): RoutedSlackMessage {
  if (event.subtype && !PERSON_SUBTYPES.has(event.subtype)) return { kind: 'ignore', why: `subtype ${event.subtype}` };
  if (event.bot_id || !event.user) return { kind: 'ignore', why: 'a bot wrote it' };
  if (context.botUserId && event.user === context.botUserId) return { kind: 'ignore', why: 'our own message' };
  if (event.edited) return { kind: 'ignore', why: 'an edit' };
  const isReply = Boolean(event.thread_ts && event.thread_ts !== event.ts);
  const threadTs = event.thread_ts ?? event.ts;
  const malformed = slackIdProblem(context.teamId, event.channel, threadTs);
  if (malformed) return { kind: 'ignore', why: malformed, malformed: true };
  const threadId = slackThreadId(context.teamId, event.channel, threadTs);
  // Only a DM channel Slack itself marks as `im` (in a signed request) counts as private.
  const privateDm = event.channel_type === 'im' && event.channel.startsWith('D');
  const mentionsUs = Boolean(context.botUserId && event.text?.includes(`<@${context.botUserId}>`));
  const message: ThreadMessage = {
    messageId: context.eventId,
    text: stripMention(event.text ?? '', context.botUserId),
    requester: { id: event.user, surface: 'slack' },
    channelId: event.channel,
    ...(isReply ? { addressedToRun: true } : {}),
    ...(privateDm ? { defaultAgent: 'orchestrator' } : {}),
  };
  const input: ThreadInput = { threadId, replyTarget: { kind: 'slack', team: context.teamId, channel: event.channel, threadTs } };

  if (event.type === 'app_mention') {
    if (privateDm) return { kind: 'ignore', why: 'a mention in a DM arrives as message.im' };
    return { kind: 'start', threadId, input, message };
  }
  if (event.type !== 'message') return { kind: 'ignore', why: `event ${event.type}` };
  if (privateDm) return { kind: 'start', threadId, input, message };
  if (event.channel_type === 'im') return { kind: 'ignore', why: 'not a private DM' };
  // Slack also sends the mention as `app_mention`; acting on both would answer twice.
  if (mentionsUs) return { kind: 'ignore', why: 'handled as app_mention' };
  if (isReply) return { kind: 'continue', threadId, message };
  return { kind: 'ignore', why: 'a channel message that does not mention us' };
}

function stripMention(text: string, botUserId: string | undefined): string {
  const withoutUs = botUserId ? text.split(`<@${botUserId}>`).join(' ') : text;
  // Spaces run together within a line (a mention leaves two); lines and their indentation stay, as a plan's YAML needs.
  return withoutUs
    .split('\n')
    .map((line) => line.replace(/(\S)[ \t]{2,}/g, '$1 ').replace(/[ \t]+$/, ''))
    .join('\n')
    .trim();
}
