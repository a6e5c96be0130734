import { type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { SlackEventSender, type SendOptions, type SendResult } from './event-sender';
import { SlackFaults } from './faults';
import { LocalSlackState, type LocalMessage, type LocalUser } from './state';
import { scopeNeeded, WEB_API_METHODS, type WebApiContext } from './web-api';
import { slackBotScopes } from '../../activities/slack/app-needs';
import { pageRoutes } from './web-page';

export { SlackEventSender, slackSignature, type SendOptions, type SendResult } from './event-sender';
export { SlackFaults } from './faults';
export { LocalSlackState, type LocalMessage, type LocalUser } from './state';

export interface LocalSlackOptions {
  /** The bot token the app must present. */
  botToken: string;
  /** Where events and interactive payloads go (the app's `/slack/events`), signed with `signingSecret`. */
  eventsUrl?: string;
  signingSecret?: string;
  team?: { id: string; name: string };
  bot?: { userId: string; botId: string; name: string };
  appId?: string;
  /** Channel names by id (`{ C0DEMO: 'dev' }`), for the web page. */
  channels?: Record<string, string>;
  /** People of the workspace (`users.info`, names on the web page). */
  users?: LocalUser[];
  port?: number;
  host?: string;
  /**
   * The bot token's scopes, as installing the app granted them (default: what Switchboard's
   * manifest asks for, activities/slack/app-needs.ts). Every answer reports them in
   * `x-oauth-scopes`, as Slack does, and a method whose scope is missing is refused with
   * `missing_scope`, naming what it needed.
   */
  scopes?: string[];
}

/** One Web API call as the local Slack received it. */
export interface RecordedCall {
  method: string;
  params: Record<string, unknown>;
  /** What became of it: `ok`, Slack's error code, or a fault (`rate_limited`, `dropped`, `server_error`). */
  outcome: string;
  at: number;
}

export interface LocalSlack {
  /** Base URL of the server; `GET <url>/` is the read-only web page of the workspace. */
  url: string;
  /** For the SDK's `slackApiUrl` (ends in `/api/`). */
  apiUrl: string;
  state: LocalSlackState;
  faults: SlackFaults;
  calls: RecordedCall[];
  team: { id: string; name: string };
  bot: { userId: string; botId: string; name: string };
  /** Sends events to `eventsUrl`; undefined until one is set. */
  events?: SlackEventSender;
  /** Points event delivery at the app (when the app starts after the local Slack). */
  deliverTo(eventsUrl: string, signingSecret: string): SlackEventSender;
  callsTo(method: string): RecordedCall[];
  /** A person writes a message (stored, then its events delivered: `message`, and `app_mention` when it mentions the bot). */
  userSays(
    input: { channel: string; user: string; text: string; threadTs?: string; channelType?: 'channel' | 'group' | 'im' },
    options?: SendOptions,
  ): Promise<{ message: LocalMessage; deliveries: Array<{ envelope: Record<string, unknown>; result: SendResult }> }>;
  /** A person adds a reaction to a message (`reaction_added` delivered). */
  react(input: { channel: string; user: string; ts: string; name: string }, options?: SendOptions): Promise<SendResult>;
  /** A person clicks a button on a message (`block_actions` delivered). */
  clickButton(
    input: { channel: string; user: string; messageTs: string; actionId: string; value: string },
    options?: SendOptions,
  ): Promise<SendResult>;
  close(): Promise<void>;
}

/**
 * A stand-in for Slack on loopback: the Web API subset Switchboard calls (form- or
 * JSON-encoded, token and scopes checked), an in-memory workspace, every call recorded, fault
 * injection, and signed event delivery to the app. The `/_local/*` routes let the offline
 * demo play a person with curl, and `GET /` is a read-only page that shows the workspace
 * as Slack would, live.
 */
export async function startLocalSlack(options: LocalSlackOptions): Promise<LocalSlack> {
  const state = new LocalSlackState();
  for (const [id, name] of Object.entries(options.channels ?? {})) state.channelNames.set(id, name);
  for (const user of options.users ?? []) state.users.set(user.id, user);
  const faults = new SlackFaults();
  const calls: RecordedCall[] = [];
  const team = options.team ?? { id: 'T0LOCAL', name: 'local' };
  const bot = options.bot ?? { userId: 'U0SWITCHBOARD', botId: 'B0SWITCHBOARD', name: 'switchboard' };
  const context: WebApiContext = { state, team, bot, baseUrl: () => local.url };
  const scopes = options.scopes ?? slackBotScopes().map((need) => need.scope);
  const app = express();

  app.post('/api/:method', express.urlencoded({ extended: false }), express.json(), (req: Request, res: Response) => {
    const method = String(req.params.method);
    const params = decodeParams({ ...(req.query as Record<string, unknown>), ...((req.body ?? {}) as Record<string, unknown>) });
    const call: RecordedCall = { method, params, outcome: 'ok', at: Date.now() };
    calls.push(call);
    const token = req.get('authorization')?.replace(/^Bearer\s+/i, '') ?? (typeof params.token === 'string' ? params.token : undefined);
    if (!token) return void res.json(answer(call, { ok: false, error: 'not_authed' }));
    if (token !== options.botToken) return void res.json(answer(call, { ok: false, error: 'invalid_auth' }));
    const handler = WEB_API_METHODS[method];
    if (!handler) return void res.json(answer(call, { ok: false, error: 'unknown_method' }));
    res.set('x-oauth-scopes', scopes.join(','));
    const needed = scopeNeeded(method, params);
    if (needed) res.set('x-accepted-oauth-scopes', needed);
    if (needed && !scopes.includes(needed)) {
      return void res.json(answer(call, { ok: false, error: 'missing_scope', needed, provided: scopes.join(',') }));
    }
    const fault = faults.take(method);
    if (fault?.kind === 'rate_limited') {
      call.outcome = 'rate_limited';
      return void res.status(429).set('retry-after', String(fault.retryAfterSeconds)).json({ ok: false, error: 'ratelimited' });
    }
    if (fault?.kind === 'lose_request') {
      call.outcome = 'lost';
      return void req.socket.destroy();
    }
    if (fault?.kind === 'server_error') {
      call.outcome = 'server_error';
      return void res.status(fault.status).send('upstream trouble');
    }
    const result = answer(call, handler(context, params));
    // postMessage and uploads add messages (which counts as a change); these edit in place.
    if (result.ok && IN_PLACE_EDITS.has(method)) state.touch();
    if (fault?.kind === 'drop_response') {
      call.outcome = 'dropped';
      return void req.socket.destroy();
    }
    res.json(result);
  });

  // The upload URL files.getUploadURLExternal hands out: takes the raw bytes (or a multipart form).
  app.post('/upload/v1/:id', express.raw({ type: () => true, limit: '60mb' }), (req: Request, res: Response) => {
    const file = state.files.get(String(req.params.id));
    const call: RecordedCall = { method: 'upload', params: { id: req.params.id }, outcome: 'ok', at: Date.now() };
    calls.push(call);
    if (!file || file.completed) {
      call.outcome = 'not_found';
      return void res.status(404).send('upload not found');
    }
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (body.length !== file.length) {
      call.outcome = 'length_mismatch';
      return void res.status(400).send(`expected ${file.length} bytes, got ${body.length}`);
    }
    file.content = body;
    res.status(200).send(`OK - ${body.length}`);
  });
  app.get('/files/:id', (req, res) => {
    const file = state.files.get(String(req.params.id));
    if (!file?.content) return void res.status(404).send('no such file');
    res.type('application/octet-stream').send(file.content);
  });

  const local = { state, faults, calls, team, bot } as LocalSlack;
  const sender = () => {
    if (!local.events) throw new Error('the local Slack has no events URL: call deliverTo() first');
    return local.events;
  };
  local.deliverTo = (eventsUrl, signingSecret) => {
    local.events = new SlackEventSender(eventsUrl, signingSecret, {
      id: team.id,
      appId: options.appId ?? 'A0SWITCHBOARD',
      botUserId: bot.userId,
    });
    return local.events;
  };
  if (options.eventsUrl && options.signingSecret) local.deliverTo(options.eventsUrl, options.signingSecret);
  local.callsTo = (method) => calls.filter((call) => call.method === method);
  local.userSays = async (input, sendOptions) => {
    const channelType = input.channelType ?? (input.channel.startsWith('D') ? 'im' : 'channel');
    const message = state.add({
      channel: input.channel,
      user: input.user,
      text: input.text,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    });
    const event = {
      type: 'message',
      channel: input.channel,
      user: input.user,
      text: input.text,
      ts: message.ts,
      event_ts: message.ts,
      channel_type: channelType,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    };
    const deliveries = [await sender().sendEvent(event, sendOptions)];
    if (channelType !== 'im' && input.text.includes(`<@${bot.userId}>`)) {
      const { channel_type: _type, ...mention } = event;
      deliveries.push(await sender().sendEvent({ ...mention, type: 'app_mention' }, sendOptions));
    }
    return { message, deliveries };
  };
  local.react = async (input, sendOptions) => {
    const message = state.find(input.channel, input.ts);
    if (message) {
      message.reactions ??= [];
      const existing = message.reactions.find((reaction) => reaction.name === input.name);
      if (existing) {
        existing.users.push(input.user);
        existing.count += 1;
      } else message.reactions.push({ name: input.name, users: [input.user], count: 1 });
      state.touch();
    }
    const event = {
      type: 'reaction_added',
      user: input.user,
      reaction: input.name,
      item: { type: 'message', channel: input.channel, ts: input.ts },
      item_user: message?.user,
      event_ts: state.nextTs(),
    };
    return (await sender().sendEvent(event, sendOptions)).result;
  };
  local.clickButton = (input, sendOptions) => {
    const message = state.find(input.channel, input.messageTs);
    return sender().sendInteraction(
      {
        type: 'block_actions',
        team: { id: team.id, domain: team.name },
        user: { id: input.user, username: input.user, team_id: team.id },
        api_app_id: options.appId ?? 'A0SWITCHBOARD',
        token: 'deprecated-verification-token',
        trigger_id: `trigger-${Date.now()}`,
        container: { type: 'message', message_ts: input.messageTs, channel_id: input.channel, is_ephemeral: false },
        channel: { id: input.channel, name: input.channel },
        message: message ? { ...message } : { ts: input.messageTs },
        response_url: `${local.url}/_local/response`,
        actions: [
          { type: 'button', action_id: input.actionId, block_id: 'controls', value: input.value, action_ts: `${Date.now() / 1000}` },
        ],
      },
      sendOptions,
    );
  };

  app.post('/_local/say', express.json(), async (req, res) => res.json(await local.userSays(req.body)));
  app.post('/_local/react', express.json(), async (req, res) => res.json(await local.react(req.body)));
  app.post('/_local/click', express.json(), async (req, res) => res.json(await local.clickButton(req.body)));
  app.post('/_local/response', express.json(), (_req, res) => void res.json({ ok: true }));
  app.get('/_local/calls', (_req, res) => void res.json(calls));
  app.get('/_local/messages/:channel', (req, res) => void res.json(state.messages(String(req.params.channel))));
  app.use(pageRoutes({ state, team, bot }));

  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  local.url = `http://${options.host ?? '127.0.0.1'}:${port}`;
  local.apiUrl = `${local.url}/api/`;
  local.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return local;
}

/** Web API methods that change a message in place (a status card's edit, a reaction). */
const IN_PLACE_EDITS = new Set(['chat.update', 'reactions.add']);

/** Form fields that carry JSON (`blocks`, `metadata`, `files`) become objects, as Slack reads them. */
function decodeParams(params: Record<string, unknown>): Record<string, unknown> {
  const decoded: Record<string, unknown> = { ...params };
  for (const key of ['blocks', 'metadata', 'attachments', 'files']) {
    const value = decoded[key];
    if (typeof value === 'string') {
      try {
        decoded[key] = JSON.parse(value);
      } catch {
        // Left as text; the method refuses what it cannot use.
      }
    }
  }
  return decoded;
}

function answer<T extends { ok: boolean; error?: unknown }>(call: RecordedCall, result: T): T {
  call.outcome = result.ok ? 'ok' : String(result.error);
  return result;
}
