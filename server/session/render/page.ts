import { PAGE_SCRIPT, PAGE_STYLE } from './assets';
import { esc, personalise } from './html';
import type { Block, PageParts, Section } from './parts';

/** What the page says about its reader and what it lets them do (server/session/access.ts decides). */
export interface ViewerView {
  /** How the page was opened, in words: "a signed link", "ana (API token laptop)". */
  who: string;
  /** Signed in with an API token (the steer box needs a person; a link names nobody). */
  person: boolean;
  /** The admission's word for this person on this workflow. */
  may: { steer: boolean; stop: boolean; why?: string };
}

export interface PageOptions {
  parts: PageParts;
  workflowId: string;
  viewer: ViewerView;
  /** A fresh nonce per response: the Content-Security-Policy allows only this page's own style and script. */
  nonce: string;
  /** Signs the page's links to workflows for this viewer (html.ts `personalise`). */
  sign: (workflowId: string, suffix: string) => string;
  /** The live updates' URL, the form targets and the sign-in, signed for this viewer. */
  urls: { events: string; steer: string; stop: string; signIn: string; signOut: string };
  version: number;
  /** A line to show once (after a form post without the script). */
  notice?: string;
}

const KIND_WORDS: Record<PageParts['kind'], string> = { run: 'Run', unit: 'Ship unit', thread: 'Thread', workflow: 'Workflow' };

/** The whole document: server-rendered, readable without the script, live with it. */
export function renderPage(options: PageOptions): string {
  const { parts, nonce } = options;
  const sections = parts.sections.map((section) => sectionHtml(section, options)).join('');
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${esc(parts.title)} · Switchboard</title>`,
    `<style nonce="${nonce}">${PAGE_STYLE}</style></head>`,
    `<body data-events="${esc(parts.open ? options.urls.events : '')}" data-version="${options.version}">`,
    '<a class="skip" href="#main">Skip to the session</a>',
    '<header class="page-head">',
    `<p class="crumbs">Switchboard · ${KIND_WORDS[parts.kind]} session · opened with ${esc(options.viewer.who)}</p>`,
    `<h1>${esc(parts.title.split(' · ')[0])}<code>${esc(options.workflowId)}</code></h1>`,
    `<div id="header-body">${personalise(parts.header, options.sign)}</div>`,
    '</header>',
    '<main id="main">',
    `<div id="notice" role="status" aria-live="polite">${esc(options.notice ?? '')}</div>`,
    sections,
    parts.open ? actions(options) : '',
    '</main>',
    `<footer><p id="live">${parts.open ? 'This page follows the workflow live (with scripts on); reload to refresh without them.' : 'Finished: nothing more will change.'}</p></footer>`,
    `<script nonce="${nonce}">${PAGE_SCRIPT}</script>`,
    '</body></html>',
  ].join('');
}

function sectionHtml(section: Section, options: PageOptions): string {
  const blocks = section.blocks.map((block) => personalise(block.html, options.sign)).map((html, i) => withId(html, section.blocks[i]));
  const empty = blocks.length === 0 && section.empty ? `<p class="empty">${esc(section.empty)}</p>` : '';
  // An empty section without words waits hidden for its first block (a live update shows it).
  const hidden = blocks.length === 0 && !section.empty ? ' hidden' : '';
  return (
    `<section aria-labelledby="h-${section.id}"${hidden}><h2 id="h-${section.id}">${esc(section.title)}</h2>` +
    `<div class="blocks" id="${section.id}">${blocks.join('')}${empty}</div></section>`
  );
}

/** A block's HTML with its id on its outer element, so a live update can find and replace it. */
export function withId(html: string, block: Block): string {
  return html.replace(/^<([a-z][a-z0-9]*)/, `<$1 id="${esc(block.id)}"`);
}

function actions(options: PageOptions): string {
  const { viewer, urls, parts } = options;
  const title = `<h2 id="h-actions">${parts.steerable ? 'Steer or stop' : 'Stop'}</h2>`;
  if (!viewer.person) {
    return (
      `<section id="actions" aria-labelledby="h-actions">${title}` +
      '<p>A link names nobody, so it cannot steer or stop. Sign in with your Switchboard API token ' +
      '(<code>switchboard tokens create</code>) to do it here, or reply in the conversation this came from.</p>' +
      `<form method="post" action="${esc(urls.signIn)}"><label for="token">API token</label>` +
      '<input id="token" name="token" type="password" autocomplete="off" required>' +
      '<button type="submit">Sign in</button></form></section>'
    );
  }
  if (!viewer.may.steer && !viewer.may.stop) {
    return `<section id="actions" aria-labelledby="h-actions">${title}<p>${esc(viewer.may.why ?? 'You may not steer or stop this workflow.')}</p>${signOut(urls)}</section>`;
  }
  const steer =
    parts.steerable && viewer.may.steer
      ? `<form method="post" action="${esc(urls.steer)}" data-live><label for="steer-text">A new instruction (joins before the next turn)</label>` +
        '<textarea id="steer-text" name="text" required maxlength="8000"></textarea><button type="submit">Send steer</button></form>'
      : '';
  const stop = viewer.may.stop
    ? `<form method="post" action="${esc(urls.stop)}" data-live><label for="stop-reason">Reason for stopping (optional)</label>` +
      '<input id="stop-reason" name="reason" type="text" maxlength="500"><button type="submit" class="danger">Stop</button></form>'
    : '';
  return `<section id="actions" aria-labelledby="h-actions">${title}${steer}${stop}${signOut(urls)}</section>`;
}

function signOut(urls: PageOptions['urls']): string {
  return `<form method="post" action="${esc(urls.signOut)}"><button type="submit">Sign out</button></form>`;
}
