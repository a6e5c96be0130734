import type { ThreadItem, ThreadSession } from '../model/thread-session';
import { renderChild } from './call-view';
import { facts, type Fact } from './facts';
import { badge, clip, esc, pageLink, plural, timeTag } from './html';
import { markdown } from './markdown';
import type { PageParts, RenderContext } from './parts';

/** A thread's page: each message with the thread's decision, the runs and units it started, and its replies. */
export function renderThread(session: ThreadSession, context: RenderContext): PageParts {
  const blocks = session.items.map((item, index) => ({ id: `i${index}`, html: renderItem(item, context) }));
  const state = session.state;
  const list: Fact[] = [
    ['Agent', state?.stickyAgent ? `<code>${esc(state.stickyAgent)}</code> (sticky)` : ''],
    ['Current run', state?.currentRunId ? `<a href="${pageLink(state.currentRunId)}"><code>${esc(state.currentRunId)}</code></a>` : 'none'],
    ['Queued', state ? String(state.queued) : ''],
    ['Runs', String(state?.runCount ?? session.runIds.length)],
    ['Units', session.unitIds.length ? String(session.unitIds.length) : ''],
    ['Started', timeTag(session.startedAt)],
    [
      'Temporal',
      context.webUi?.(session.workflowId)
        ? `<a href="${esc(context.webUi(session.workflowId))}" rel="noopener noreferrer">Open in Temporal</a>`
        : '',
    ],
  ];
  const status = session.open
    ? badge(state?.currentRunId ? 'A run is working' : 'Waiting for messages', 'live')
    : badge(session.closedStatus ?? 'ended', session.closedStatus ? 'bad' : 'plain');
  return {
    title: `Thread · ${session.workflowId}`,
    kind: 'thread',
    open: session.open,
    header: `<p class="state">${status}</p>${facts(list)}`,
    sections: [{ id: 'conversation', title: 'Conversation', blocks, empty: 'No message yet.' }],
    steerable: false,
  };
}

function renderItem(item: ThreadItem, context: RenderContext): string {
  const { redact } = context;
  switch (item.kind) {
    case 'message': {
      const who = item.message.requester.displayName ?? item.message.requester.id;
      const outcome = item.outcome ? `<p class="io">${esc(decision(item.outcome))}</p>` : '';
      return `<article class="item request"><h3>${esc(redact(who))} <span class="muted">(${esc(item.message.requester.surface)})</span> ${timeTag(item.at)}</h3><div class="md">${markdown(redact(clip(item.message.text, 8_000).text))}</div>${outcome}</article>`;
    }
    case 'run':
      return `<article class="item">${renderChild(item.child, context)}</article>`;
    case 'unit':
      return `<article class="item"><p>Ship unit <a href="${pageLink(item.unitId)}"><code>${esc(item.unitId)}</code></a> ${item.status ? badge(item.status, item.status === 'refused' ? 'bad' : 'good') : ''} ${timeTag(item.at)}</p>${item.reason ? `<p class="error">${esc(redact(item.reason))}</p>` : ''}</article>`;
    case 'reply':
      return `<article class="item"><h3>Switchboard replied ${timeTag(item.at)}</h3><div class="md">${markdown(redact(clip(item.text, 8_000).text))}</div></article>`;
    case 'stop':
      return `<article class="item stop"><p>■ <strong>Stop</strong>${item.by ? ` by ${esc(redact(item.by))}` : ''} ${timeTag(item.at)}${item.reason ? `: ${esc(redact(item.reason))}` : ''}</p></article>`;
    case 'earlier':
      return `<details class="item note" data-key="earlier"><summary>${plural(item.exchanges.length, 'earlier exchange')}</summary>${item.exchanges
        .map(
          (exchange) =>
            `<p><strong>${esc(exchange.agent)}</strong> (${esc(exchange.outcome)}): ${esc(redact(clip(exchange.request, 300).text))}</p><div class="md">${markdown(redact(clip(exchange.answer, 1_500).text))}</div>`,
        )
        .join('')}</details>`;
    case 'continued':
      return `<p class="item note">The thread went on in a fresh execution (continue-as-new) ${timeTag(item.at)}.</p>`;
  }
}

function decision(outcome: NonNullable<Extract<ThreadItem, { kind: 'message' }>['outcome']>): string {
  switch (outcome.kind) {
    case 'run':
      return `Decision: a ${outcome.agent ?? ''} run (${outcome.runId ?? ''})`;
    case 'unit':
      return `Decision: ship unit ${outcome.unitId ?? ''}`;
    case 'refused':
      return `Decision: refused${outcome.code ? ` (${outcome.code})` : ''}`;
    default:
      return `Decision: ${outcome.kind}`;
  }
}
