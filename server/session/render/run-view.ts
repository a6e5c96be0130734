import { formatCost, STEP_MARKS, stepsProgress } from '../../../infra/run-format';
import { sessionPath } from '../../../infra/session-links';
import { checklistOf, type RunItem, type RunSession, type TurnItem } from '../model/run-session';
import type { BoardEntry } from '../../../workflows/contracts/board';
import { renderCall, renderChild, toneOf } from './call-view';
import { badge, clip, count, duration, esc, plural, timeTag } from './html';
import { markdown } from './markdown';
import { githubLinks, type Block, type PageParts, type RenderContext, type Section } from './parts';
import { facts, type Fact } from './facts';

/** Turns this close to the latest show their calls' output; older ones keep one line per call (a long run's page stays small). */
export const DETAILED_TURNS = 20;
/** A turn's text beyond this is cut (the whole is in the run's record and history). */
const TURN_TEXT_CHARS = 8_000;

const PHASE_WORDS: Record<string, string> = {
  starting: 'Starting',
  thinking: 'Thinking',
  tools: 'Running tools',
  waiting: 'Waiting',
  summarising: 'Summarising',
  finished: 'Finished',
};

/** A run's page: header facts, the conversation turn by turn, files written, and the answer. */
export function renderRun(session: RunSession, context: RenderContext, diff?: Block): PageParts {
  const lastTurn = session.items.reduce((last, item) => (item.kind === 'turn' ? Math.max(last, item.turn) : last), 0);
  const blocks = session.items.map((item, index) => ({
    id: `i${index}`,
    html: renderItem(item, session, context, item.kind === 'turn' && lastTurn - item.turn >= DETAILED_TURNS),
  }));
  const answer = answerBlock(session, context);
  // Every section is there from the start (hidden while empty), so a live update has a place for its first block.
  const sections: Section[] = [
    { id: 'conversation', title: 'Conversation', blocks, empty: 'Nothing yet.' },
    { id: 'files', title: 'Files written', blocks: session.filesWritten.length ? [filesBlock(session, context)] : [] },
    { id: 'diff', title: 'Changes against the base', blocks: diff ? [diff] : [] },
    { id: 'answer', title: session.record?.summary ? 'Closing summary' : 'Answer', blocks: answer ? [answer] : [] },
    { id: 'board', title: 'Team board', blocks: session.board ? [boardBlock(session.board, session.record?.board?.shown, context)] : [] },
  ];
  const agent = session.input?.profile.displayName ?? session.status?.agent ?? 'Run';
  return {
    title: `${agent} run · ${session.workflowId}`,
    kind: 'run',
    open: session.open,
    header: header(session, context),
    sections,
    steerable: true,
  };
}

function header(session: RunSession, context: RenderContext): string {
  const { input, status, record } = session;
  const profile = input?.profile;
  // While tools run, which one: "Running bash", not a phase word.
  const phase = status?.phase === 'tools' && status.lastTool ? `Running ${status.lastTool}` : PHASE_WORDS[status?.phase ?? 'starting'];
  const state = session.open
    ? badge(phase ?? 'Running', 'live')
    : badge(record?.outcome ?? session.closedStatus ?? 'closed', toneOf(record?.outcome ?? session.closedStatus ?? ''));
  const repo = profile?.repo?.value;
  const pullRequest = input?.replyTarget.kind === 'github' ? input.replyTarget.pullRequest : input?.carry?.direct?.pullRequest;
  const links = githubLinks(context, repo, pullRequest);
  const used = (session.closedAt ?? context.now) - session.startedAt;
  const budgetMinutes = profile?.budget.minutes;
  const turnGuard = profile?.turnGuard ?? status?.turnGuard;
  const cost = formatCost({ usd: session.costUsd, searches: 0, searchUsd: 0, unpriced: session.unpriced });
  const list: Fact[] = [
    ['Agent', profile ? `${esc(profile.displayName)} <code>${esc(profile.agent)}</code>` : esc(status?.agent ?? '')],
    ['Model', `<code>${esc(profile?.model.value ?? status?.model ?? '')}</code>`],
    ['Requester', requesterHtml(input)],
    ['Repository', repo ? link(links.repoUrl, repo) : ''],
    ['Pull request', pullRequest ? link(links.pullUrl, `#${pullRequest}`) : ''],
    ['Part of', partOf(session)],
    ['Team board', session.board ? `<a href="#board"><code>${esc(session.board.id)}</code></a>` : ''],
    [
      'Budget',
      budgetMinutes
        ? `${esc(duration(used))} used of ${budgetMinutes} min` +
          (session.open && session.deadline ? ` · ${esc(duration(Math.max(0, session.deadline - context.now)))} left` : '')
        : '',
    ],
    [
      'Turns',
      turnGuard
        ? `${session.turns} of ${turnGuard}${session.open ? ` · ${Math.max(0, turnGuard - session.turns)} left` : ''}`
        : String(session.turns),
    ],
    ['Tokens', tokensHtml(session, profile?.tokenCap)],
    ['Cost', esc(cost ?? (session.unpriced.length ? `not priced (${session.unpriced.join(', ')})` : '$0'))],
    [
      'Next timer',
      session.open && session.nextTimer
        ? `${esc(session.nextTimer.label)} at ${timeTag(session.nextTimer.fireAt)} (in ${esc(duration(session.nextTimer.fireAt - context.now))})`
        : '',
    ],
    ['Started', timeTag(session.startedAt)],
    ['Ended', session.closedAt ? `${timeTag(session.closedAt)}${record?.endedBy ? ` · ${esc(context.redact(record.endedBy))}` : ''}` : ''],
    ['Temporal', context.webUi?.(session.workflowId) ? link(context.webUi(session.workflowId), 'Open in Temporal') : ''],
  ];
  const line = session.open && status?.statusText ? `<p class="status-line">${esc(context.redact(status.statusText))}</p>` : '';
  const failure = session.failure ? `<p class="error">${esc(context.redact(session.failure))}</p>` : '';
  return `<p class="state">${state}${session.open ? ' <span class="live-dot" aria-hidden="true"></span>' : ''}</p>${line}${checklist(session, context)}${failure}${facts(list)}`;
}

function renderItem(item: RunItem, session: RunSession, context: RenderContext, brief: boolean): string {
  const { redact } = context;
  switch (item.kind) {
    case 'request':
      return (
        `<article class="item request"><h3>Request ${timeTag(item.at)}</h3>` +
        (item.context ? `<p class="io">after ${plural(item.context, 'earlier message')} of the thread</p>` : '') +
        `<div class="md">${markdown(redact(item.text))}</div></article>`
      );
    case 'turn':
      return renderTurn(item, session, context, brief);
    case 'steer':
      return `<article class="item steer"><p>✋ <strong>Steer</strong>${item.by ? ` from ${esc(redact(item.by))}` : ''} ${timeTag(item.at)}</p><div class="md">${markdown(redact(item.text))}</div></article>`;
    case 'stop':
      return `<article class="item stop"><p>■ <strong>Stop</strong>${item.by ? ` by ${esc(redact(item.by))}` : ''} ${timeTag(item.at)}${item.reason ? `: ${esc(redact(item.reason))}` : ''}</p></article>`;
    case 'continued':
      return `<p class="item note">The run went on in a fresh execution (continue-as-new) ${timeTag(item.at)}.</p>`;
    case 'omitted':
      return `<p class="item note">${plural(item.executions, 'earlier execution')} of this run ${item.executions === 1 ? 'is' : 'are'} not shown; the Temporal Web UI has ${item.executions === 1 ? 'it' : 'them'}.</p>`;
  }
}

function renderTurn(turn: TurnItem, session: RunSession, context: RenderContext, brief: boolean): string {
  const title =
    turn.purpose === 'compaction'
      ? 'Older turns summarised'
      : turn.purpose === 'closing'
        ? `Turn ${turn.turn} · closing summary`
        : `Turn ${turn.turn}`;
  const usage = turn.usage
    ? `<span class="usage">${count(turn.usage.input)} in · ${count(turn.usage.output)} out${turn.usage.cacheRead ? ` · ${count(turn.usage.cacheRead)} cached` : ''}</span>`
    : '';
  const state = turn.state === 'thinking' ? badge('thinking', 'live') : turn.state === 'done' ? '' : badge(turn.state, 'bad');
  const text = turn.text.trim() ? `<div class="md">${markdown(context.redact(clip(turn.text, TURN_TEXT_CHARS).text))}</div>` : '';
  const calls = turn.calls.map((call) => renderCall(call, session.workflowId, context, brief)).join('');
  const children = turn.children.map((child) => renderChild(child, context)).join('');
  const error = turn.error ? `<p class="error">${esc(context.redact(turn.error))}</p>` : '';
  return `<article class="item turn${turn.purpose === 'turn' ? '' : ` ${turn.purpose}`}"><h3>${title} ${timeTag(turn.at)} ${state} ${usage}</h3>${text}${error}${calls}${children}</article>`;
}

/**
 * The team board the run read (docs/board.md): its kept entries as they were when the run started,
 * those its system prompt carried marked, and the proposed ones waiting for a keeper.
 */
function boardBlock(board: NonNullable<RunSession['board']>, shown: string[] | undefined, context: RenderContext): Block {
  const kept = board.entries.filter((entry) => entry.state === 'kept');
  const proposed = board.entries.filter((entry) => entry.state === 'proposed');
  const row = (entry: BoardEntry, note: string) =>
    `<li><code>${esc(entry.id)}</code> <span class="muted">${esc(entry.kind)}</span> ${esc(context.redact(entry.text))}${note ? ` <span class="muted">${note}</span>` : ''}</li>`;
  const inPrompt = (entry: BoardEntry) => (shown === undefined || shown.includes(entry.id) ? '' : '(past the prompt bound: not read)');
  return {
    id: 'board-entries',
    html:
      `<p><code>${esc(board.id)}</code>: ${`${kept.length} kept ${kept.length === 1 ? 'entry' : 'entries'}`} read into this run's system prompt, as data` +
      `${proposed.length ? `; ${`${proposed.length} proposed ${proposed.length === 1 ? 'entry' : 'entries'}`} waiting for a keeper (not read)` : ''}.</p>` +
      (kept.length ? `<ul class="files">${kept.map((entry) => row(entry, inPrompt(entry))).join('')}</ul>` : '') +
      (proposed.length ? `<ul class="files">${proposed.map((entry) => row(entry, 'proposed')).join('')}</ul>` : ''),
  };
}

function filesBlock(session: RunSession, context: RenderContext): Block {
  const rows = session.filesWritten
    .map((file) => `<li><code>${esc(context.redact(file.path))}</code> · ${file.bytes} bytes · turn ${file.turn}</li>`)
    .join('');
  return { id: 'files-list', html: `<ul class="files">${rows}</ul>` };
}

function answerBlock(session: RunSession, context: RenderContext): Block | undefined {
  const text = session.record?.summary ?? session.record?.finalText;
  if (!text?.trim()) return undefined;
  return { id: 'answer-text', html: `<div class="md answer">${markdown(context.redact(text))}</div>` };
}

function tokensHtml(session: RunSession, tokenCap: number | undefined): string {
  const t = session.tokens;
  return (
    `${count(t.input)} in · ${count(t.output)} out` +
    (t.cacheRead || t.cacheWrite ? ` · ${count(t.cacheRead)} cache read · ${count(t.cacheWrite)} cache write` : '') +
    (tokenCap ? ` · cap ${count(tokenCap)} per turn` : '')
  );
}

function requesterHtml(input: RunSession['input']): string {
  if (!input) return '';
  const { requester } = input;
  return `${esc(requester.displayName ?? requester.id)} <span class="muted">(${esc(requester.surface)})</span>`;
}

/** What the run is part of: its unit, the run that started it, or its thread (plain links: a link opens one workflow). */
function partOf(session: RunSession): string {
  const id = session.workflowId;
  const parent = session.input?.parent?.workflowId;
  const unit = session.input?.submitsTo === 'unit' ? id.replace(/\/(coding|review)-\d+-\d+$/, '') : undefined;
  const owner = unit ?? parent ?? session.input?.threadId;
  if (!owner) return '';
  const label = unit ? 'unit' : parent ? 'run' : 'thread';
  return `${label} <a href="${esc(sessionPath(owner))}"><code>${esc(owner)}</code></a>`;
}

function link(url: string | undefined, text: string): string {
  return url ? `<a href="${esc(url)}" rel="noopener noreferrer">${esc(text)}</a>` : esc(text);
}

/** The run's checklist (update_status), each step with its state in words for screen readers. */
function checklist(session: RunSession, context: RenderContext): string {
  const steps = checklistOf(session);
  if (!steps?.length) return '';
  const items = steps
    .map((step) => {
      const mark = STEP_MARKS[step.state] ?? STEP_MARKS.pending;
      return `<li class="step step-${esc(step.state)}"><span aria-hidden="true">${mark.glyph}</span> ${esc(context.redact(step.title))} <span class="step-state">${esc(mark.words)}</span></li>`;
    })
    .join('');
  return `<section class="steps" aria-label="Steps"><h3>Steps <span class="io">${esc(stepsProgress(steps))}</span></h3><ul>${items}</ul></section>`;
}
