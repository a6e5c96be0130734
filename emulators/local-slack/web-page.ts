import { Router, type Request, type Response } from 'express';
import { blocksToHtml } from './blocks-html';
import { escapeHtml, mrkdwnToHtml, type NameLookup } from './mrkdwn-html';
import { type LocalMessage, type LocalSlackState } from './state';
import { PAGE_SCRIPT, PAGE_STYLE } from './web-page-assets';

export interface PageContext {
  state: LocalSlackState;
  team: { id: string; name: string };
  bot: { userId: string; botId: string; name: string };
}

/**
 * A read-only web page of the local Slack, so a person can watch what the app posts: the
 * channels, each thread expanded under its first message, and every message drawn as Slack
 * would (Block Kit and mrkdwn to HTML). `GET /` is the page; it listens on `/_local/stream`
 * (server-sent events, one per change) and reloads the workspace from `/_local/view`.
 */
export function pageRoutes(context: PageContext): Router {
  const router = Router();
  router.get('/', (_req, res) => void res.type('html').send(renderPage(context)));
  router.get('/_local/view', (_req, res) => void res.type('html').set('cache-control', 'no-store').send(renderWorkspace(context)));
  router.get('/_local/stream', (req: Request, res: Response) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    const send = () => res.write(`data: ${context.state.revision}\n\n`);
    send();
    // Bursts (a card edited several times a second) become one refresh.
    let pending: NodeJS.Timeout | undefined;
    const stop = context.state.onChange(() => {
      pending ??= setTimeout(() => {
        pending = undefined;
        send();
      }, 150);
    });
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    req.on('close', () => {
      stop();
      clearInterval(keepAlive);
      if (pending) clearTimeout(pending);
    });
  });
  return router;
}

export function renderPage(context: PageContext): string {
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(context.team.name)} · local Slack</title>`,
    `<style>${PAGE_STYLE}</style></head><body>`,
    `<div id="workspace">${renderWorkspace(context)}</div>`,
    `<script>${PAGE_SCRIPT}</script>`,
    '</body></html>',
  ].join('');
}

/** The sidebar and every channel: what `/_local/view` returns and the page swaps in. */
export function renderWorkspace(context: PageContext): string {
  const { state } = context;
  const names = nameLookup(context);
  const channels = state.channelIds();
  const sidebar = [
    `<nav class="sidebar"><div class="team">${escapeHtml(context.team.name)}</div>`,
    '<div class="sidebar-note">local Slack · read-only · live</div>',
    '<div class="sidebar-title">Channels</div>',
    ...channels.map(
      (id) =>
        `<a class="channel-link" href="#c-${escapeHtml(id)}"># ${escapeHtml(names.channel(id) ?? id)}` +
        `<span class="count">${state.messages(id).length}</span></a>`,
    ),
    '</nav>',
  ].join('');
  const main = channels.length
    ? channels.map((id) => renderChannel(context, id, names)).join('')
    : '<div class="empty">No messages yet.</div>';
  return `${sidebar}<main class="channels">${main}<div class="revision">change ${state.revision}</div></main>`;
}

function renderChannel(context: PageContext, channel: string, names: NameLookup): string {
  const messages = context.state.messages(channel);
  const roots = messages.filter((message) => !message.thread_ts || message.thread_ts === message.ts);
  const body = roots.map((root) => {
    const replies = messages.filter((message) => message.thread_ts === root.ts && message.ts !== root.ts);
    const thread = replies.length
      ? `<div class="thread"><div class="thread-head">${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}</div>` +
        `${replies.map((reply) => renderMessage(context, reply, names)).join('')}</div>`
      : '';
    return `<div class="conversation">${renderMessage(context, root, names)}${thread}</div>`;
  });
  return (
    `<section class="channel" id="c-${escapeHtml(channel)}">` +
    `<h2># ${escapeHtml(names.channel(channel) ?? channel)}</h2>${body.join('') || '<div class="empty">No messages yet.</div>'}</section>`
  );
}

function renderMessage(context: PageContext, message: LocalMessage, names: NameLookup): string {
  const isBot = Boolean(message.bot_id) || message.user === context.bot.userId;
  const author = isBot ? context.bot.name : (names.user(message.user) ?? message.user);
  const body =
    Array.isArray(message.blocks) && message.blocks.length > 0 ? blocksToHtml(message.blocks, names) : mrkdwnToHtml(message.text, names);
  const files = (message.files ?? [])
    .map((file) => `<a class="file" href="${escapeHtml(file.url_private)}">📄 ${escapeHtml(file.title)} <span>${file.size} B</span></a>`)
    .join('');
  const reactions = (message.reactions ?? [])
    .map((reaction) => `<span class="reaction">${mrkdwnToHtml(`:${reaction.name}:`, names)} ${reaction.count}</span>`)
    .join('');
  const edited = message.updates > 0 ? `<span class="edited" title="updated ${message.updates} times">(edited)</span>` : '';
  return [
    `<div class="message${isBot ? ' bot' : ''}" id="m-${escapeHtml(message.ts)}">`,
    `<div class="avatar" style="background:${colourFor(author)}">${escapeHtml(author.slice(0, 1).toUpperCase())}</div>`,
    '<div class="content"><div class="meta">',
    `<span class="author">${escapeHtml(author)}</span>${isBot ? '<span class="badge">APP</span>' : ''}`,
    `<span class="time" title="ts ${escapeHtml(message.ts)}">${clock(message.ts)}</span>${edited}</div>`,
    `<div class="body">${body}</div>`,
    files ? `<div class="files">${files}</div>` : '',
    reactions ? `<div class="reactions">${reactions}</div>` : '',
    '</div></div>',
  ].join('');
}

function nameLookup(context: PageContext): NameLookup {
  return {
    user: (id) => (id === context.bot.userId ? context.bot.name : context.state.users.get(id)?.name),
    channel: (id) => context.state.channelNames.get(id),
  };
}

function clock(ts: string): string {
  const date = new Date(Number(ts.split('.')[0]) * 1000);
  return Number.isNaN(date.getTime()) ? ts : date.toLocaleTimeString('en-GB', { hour12: false });
}

function colourFor(name: string): string {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) | 0;
  // Dark enough for the white initial on it whatever the hue (4.5:1 and more).
  return `hsl(${Math.abs(hash) % 360} 45% 32%)`;
}
