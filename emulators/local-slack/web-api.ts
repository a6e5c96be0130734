import { type LocalMessage, type LocalSlackState } from './state';

/** A Web API answer: Slack always answers 200 with `ok`, and `error` when refused. */
export type WebApiAnswer = ({ ok: true } & Record<string, unknown>) | ({ ok: false; error: string } & Record<string, unknown>);

export interface WebApiContext {
  state: LocalSlackState;
  /** The local Slack's base URL (upload URLs point at it). */
  baseUrl: () => string;
  team: { id: string; name: string };
  bot: { userId: string; botId: string; name: string };
}

type Params = Record<string, unknown>;

type Method = (context: WebApiContext, params: Params) => WebApiAnswer;

const refuse = (error: string): WebApiAnswer => ({ ok: false, error });

/**
 * The Web API subset Switchboard calls, applied to the in-memory workspace. Parameters
 * arrive already decoded (form fields holding JSON, such as `blocks` and `metadata`, parsed).
 */
export const WEB_API_METHODS: Record<string, Method> = {
  'auth.test': ({ team, bot }) => ({
    ok: true,
    url: `https://${team.name}.slack.test/`,
    team: team.name,
    user: bot.name,
    team_id: team.id,
    user_id: bot.userId,
    bot_id: bot.botId,
  }),

  'chat.postMessage': ({ state, bot }, params) => {
    const channel = text(params.channel);
    if (!channel) return refuse('channel_not_found');
    if (!text(params.text) && !Array.isArray(params.blocks)) return refuse('no_text');
    const threadTs = text(params.thread_ts);
    if (threadTs && !state.find(channel, threadTs)) return refuse('thread_not_found');
    const message = state.add({
      channel,
      text: text(params.text) ?? '',
      user: bot.userId,
      bot_id: bot.botId,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...(Array.isArray(params.blocks) ? { blocks: params.blocks } : {}),
      ...(isMetadata(params.metadata) ? { metadata: params.metadata } : {}),
    });
    return { ok: true, channel, ts: message.ts, message: publicMessage(message, true) };
  },

  'chat.update': ({ state, bot }, params) => {
    const channel = text(params.channel);
    const ts = text(params.ts);
    const message = channel && ts ? state.find(channel, ts) : undefined;
    if (!message) return refuse('message_not_found');
    if (message.user !== bot.userId) return refuse('cant_update_message');
    if (params.text !== undefined) message.text = text(params.text) ?? '';
    if (Array.isArray(params.blocks)) message.blocks = params.blocks;
    if (isMetadata(params.metadata)) message.metadata = params.metadata;
    message.updates += 1;
    return { ok: true, channel, ts, text: message.text, message: publicMessage(message, true) };
  },

  'chat.postEphemeral': ({ state }, params) => {
    const channel = text(params.channel);
    const user = text(params.user);
    if (!channel || !user) return refuse('channel_not_found');
    const threadTs = text(params.thread_ts);
    state.ephemerals.push({ channel, user, text: text(params.text) ?? '', ...(threadTs ? { threadTs } : {}) });
    return { ok: true, message_ts: state.nextTs() };
  },

  'conversations.replies': ({ state }, params) => {
    const channel = text(params.channel);
    const ts = text(params.ts);
    if (!channel || !ts) return refuse('invalid_arguments');
    const thread = state.thread(channel, ts);
    if (thread.length === 0) return refuse('thread_not_found');
    const limit = Math.min(Math.max(Number(params.limit) || 100, 1), 1000);
    const start = Number(text(params.cursor)?.replace(/^offset:/, '') ?? 0) || 0;
    const page = thread.slice(start, start + limit);
    const more = start + limit < thread.length;
    const metadata = params.include_all_metadata === true || params.include_all_metadata === 'true';
    return {
      ok: true,
      messages: page.map((message) => publicMessage(message, metadata)),
      has_more: more,
      response_metadata: { next_cursor: more ? `offset:${start + limit}` : '' },
    };
  },

  // A channel's top-level messages (roots and unthreaded ones), newest first, as Slack lists them;
  // `oldest`/`latest` bound the ts (exclusive), `cursor` pages on.
  'conversations.history': ({ state }, params) => {
    const channel = text(params.channel);
    if (!channel) return refuse('channel_not_found');
    const oldest = Number(text(params.oldest) ?? 0);
    const latest = Number(text(params.latest) ?? Infinity);
    const top = state
      .messages(channel)
      .filter((message) => !message.thread_ts || message.thread_ts === message.ts)
      .filter((message) => Number(message.ts) > oldest && Number(message.ts) < latest)
      .reverse();
    const limit = Math.min(Math.max(Number(params.limit) || 100, 1), 1000);
    const start = Number(text(params.cursor)?.replace(/^offset:/, '') ?? 0) || 0;
    const page = top.slice(start, start + limit);
    const more = start + limit < top.length;
    const metadata = params.include_all_metadata === true || params.include_all_metadata === 'true';
    return {
      ok: true,
      messages: page.map((message) => publicMessage(message, metadata)),
      has_more: more,
      response_metadata: { next_cursor: more ? `offset:${start + limit}` : '' },
    };
  },

  'reactions.add': ({ state, bot }, params) => {
    const channel = text(params.channel);
    const ts = text(params.timestamp);
    const name = text(params.name);
    const message = channel && ts ? state.find(channel, ts) : undefined;
    if (!message) return refuse('message_not_found');
    if (!name) return refuse('invalid_name');
    message.reactions ??= [];
    const existing = message.reactions.find((reaction) => reaction.name === name);
    if (existing?.users.includes(bot.userId)) return refuse('already_reacted');
    if (existing) {
      existing.users.push(bot.userId);
      existing.count += 1;
    } else {
      message.reactions.push({ name, users: [bot.userId], count: 1 });
    }
    return { ok: true };
  },

  // The external upload flow, as files.uploadV2 drives it: announce, POST the bytes to the
  // returned URL (served by index.ts), then complete, which shares the file in one message.
  'files.getUploadURLExternal': ({ state, baseUrl }, params) => {
    const filename = text(params.filename);
    const length = Number(params.length);
    if (!filename) return refuse('invalid_arguments');
    if (!Number.isInteger(length) || length <= 0) return refuse('invalid_arguments');
    const id = state.nextFileId();
    state.files.set(id, { id, filename, length });
    return { ok: true, upload_url: `${baseUrl()}/upload/v1/${id}`, file_id: id };
  },

  'files.completeUploadExternal': ({ state, bot, baseUrl }, params) => {
    const list = Array.isArray(params.files) ? (params.files as Array<{ id?: unknown; title?: unknown }>) : undefined;
    if (!list || list.length === 0) return refuse('invalid_arguments');
    const files = list.map((entry) => state.files.get(String(entry.id)));
    if (files.some((file) => !file || !file.content)) return refuse('file_not_found');
    if (files.some((file) => file!.completed)) return refuse('file_already_completed');
    const channel = text(params.channel_id);
    const threadTs = text(params.thread_ts);
    if (threadTs && (!channel || !state.find(channel, threadTs))) return refuse('thread_not_found');
    const infos = files.map((file, index) => {
      const title = text(list[index].title) ?? file!.filename;
      file!.completed = { title, ...(channel ? { channel } : {}), ...(threadTs ? { threadTs } : {}) };
      return {
        id: file!.id,
        name: file!.filename,
        title,
        size: file!.content!.length,
        mimetype: 'application/octet-stream',
        url_private: `${baseUrl()}/files/${file!.id}`,
        permalink: `${baseUrl()}/archives/${channel ?? 'private'}/p${file!.id}`,
      };
    });
    if (channel) {
      // initial_comment wins over blocks, as Slack documents.
      const comment = text(params.initial_comment);
      state.add({
        channel,
        text: comment ?? '',
        user: bot.userId,
        bot_id: bot.botId,
        upload: true,
        files: infos,
        ...(threadTs ? { thread_ts: threadTs } : {}),
        ...(!comment && Array.isArray(params.blocks) ? { blocks: params.blocks } : {}),
      });
    }
    return { ok: true, files: infos.map(({ id, title }) => ({ id, title })) };
  },

  'users.info': ({ state }, params) => {
    const user = state.users.get(text(params.user) ?? '');
    if (!user) return refuse('user_not_found');
    return { ok: true, user: { ...user, profile: { display_name: user.name, real_name: user.real_name ?? user.name } } };
  },
};

/**
 * The bot scope each method needs, as Slack documents it (a history read needs the scope of the
 * conversation's kind: a channel id's first letter says which). Undefined: any token may call it.
 */
export function scopeNeeded(method: string, params: Params): string | undefined {
  switch (method) {
    case 'chat.postMessage':
    case 'chat.update':
    case 'chat.postEphemeral':
      return 'chat:write';
    case 'conversations.replies': {
      const kind = (text(params.channel) ?? 'C')[0];
      return kind === 'D' ? 'im:history' : kind === 'G' ? 'groups:history' : 'channels:history';
    }
    case 'reactions.add':
      return 'reactions:write';
    case 'files.getUploadURLExternal':
    case 'files.completeUploadExternal':
      return 'files:write';
    case 'users.info':
      return 'users:read';
    default:
      return undefined;
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isMetadata(value: unknown): value is LocalMessage['metadata'] {
  return typeof value === 'object' && value !== null && typeof (value as { event_type?: unknown }).event_type === 'string';
}

/** A message as the Web API shows it; metadata only when asked for (`include_all_metadata`). */
function publicMessage(message: LocalMessage, withMetadata: boolean): Record<string, unknown> {
  const { updates: _updates, metadata, channel: _channel, ...rest } = message;
  return { ...rest, ...(withMetadata && metadata ? { metadata } : {}) };
}
