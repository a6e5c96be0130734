import type { UnitItem, UnitRound, UnitSession } from '../model/unit-session';
import { renderChild, toneOf } from './call-view';
import { renderDiff } from './diff-view';
import { facts, type Fact } from './facts';
import { badge, clip, duration, esc, pageLink, plural, timeTag } from './html';
import { markdown } from './markdown';
import { githubLinks, type Block, type PageParts, type RenderContext } from './parts';

const PHASE_WORDS: Record<string, string> = {
  coding: 'Coding',
  review: 'In review',
  findings: 'Fixing findings',
  checks: 'Waiting for CI',
  continuation: 'Continuing',
  idle: 'Ready, waiting for people',
  settle: 'Settling',
};

/** A ship unit's page: the phase timeline, each round (coding, commit and push, review with findings, checks), the diff and the report. */
export function renderUnit(session: UnitSession, context: RenderContext): PageParts {
  const rounds = session.rounds.map((round) => ({ id: `r${round.round}`, html: renderRound(round, context) }));
  const report = reportBlock(session, context);
  return {
    title: `Ship unit · ${session.workflowId}`,
    kind: 'unit',
    open: session.open,
    header: header(session, context),
    sections: [
      { id: 'timeline', title: 'Phases', blocks: [timeline(session, context)] },
      { id: 'rounds', title: 'Rounds', blocks: rounds, empty: 'No round has started yet.' },
      { id: 'diff', title: 'Changes against the base', blocks: session.diff ? [renderDiff(session.diff, context)] : [] },
      { id: 'report', title: 'Report', blocks: report ? [report] : [] },
    ],
    steerable: true,
  };
}

function header(session: UnitSession, context: RenderContext): string {
  const { input, state, record } = session;
  // What the page shows below comes from history: the header's phase, round and run do too, so they agree.
  const phase = session.timeline[session.timeline.length - 1]?.phase ?? state?.phase;
  const currentRun = session.open
    ? [...session.children].reverse().find((child) => child.state === 'running' || child.state === 'starting')
    : undefined;
  const status = session.open
    ? badge(PHASE_WORDS[phase ?? ''] ?? phase ?? 'Starting', 'live')
    : badge(record?.outcome ?? session.closedStatus ?? 'closed', toneOf(record?.outcome ?? session.closedStatus ?? ''));
  const links = githubLinks(context, input?.repo, session.pullRequest);
  const round = session.rounds.reduce((max, r) => Math.max(max, r.round), 0);
  const list: Fact[] = [
    ['Repository', input?.repo ? link(links.repoUrl, input.repo) : ''],
    ['Pull request', session.pullRequest ? link(links.pullUrl, `#${session.pullRequest}`) : 'not opened yet'],
    [
      'Requester',
      input ? `${esc(input.requester.displayName ?? input.requester.id)} <span class="muted">(${esc(input.requester.surface)})</span>` : '',
    ],
    ['Phase', esc(phase ?? '')],
    ['Round', session.maxRounds ? `${round} of at most ${session.maxRounds + 1}` : String(round)],
    [
      'Budget',
      session.budgetMinutes
        ? `${esc(duration(session.runMinutes * 60_000))} used by runs, of ${session.budgetMinutes} min` +
          (session.open ? ` · ${esc(duration(Math.max(0, session.budgetMinutes - session.runMinutes) * 60_000))} left` : '')
        : esc(duration(session.runMinutes * 60_000)),
    ],
    ['Current run', currentRun ? `<a href="${pageLink(currentRun.workflowId)}"><code>${esc(currentRun.workflowId)}</code></a>` : ''],
    ['Last review', state?.lastReview ? badge(state.lastReview.verdict.replace('_', ' '), toneOf(state.lastReview.verdict)) : ''],
    [
      'Open findings',
      state?.openFindings?.count
        ? `${state.openFindings.count}: ${state.openFindings.shown
            .map((f) =>
              esc(context.redact(`${f.id ? `${f.id} ` : ''}${f.path ? `${f.path}${f.line ? `:${f.line}` : ''} ` : ''}${f.title}`)),
            )
            .join(' · ')}`
        : '',
    ],
    [
      'Waiting for',
      state?.questions?.length
        ? state.questions.map((q) => esc(context.redact(`${q.finding ? `${q.finding}: ` : ''}${q.question}`))).join(' · ')
        : '',
    ],
    [
      'Checks',
      state?.checks
        ? `${badge(state.checks.state, toneOf(state.checks.state))} on <code>${esc(state.checks.headSha.slice(0, 12))}</code>`
        : '',
    ],
    [
      'Next timer',
      session.open && session.nextTimer
        ? `${esc(session.nextTimer.label)} at ${timeTag(session.nextTimer.fireAt)} (in ${esc(duration(session.nextTimer.fireAt - context.now))})`
        : '',
    ],
    ['Thread', input?.threadId ? `<code>${esc(input.threadId)}</code>` : ''],
    ['Started', timeTag(session.startedAt)],
    ['Ended', session.closedAt ? `${timeTag(session.closedAt)}${record?.endedBy ? ` · ${esc(context.redact(record.endedBy))}` : ''}` : ''],
    ['Temporal', context.webUi?.(session.workflowId) ? link(context.webUi(session.workflowId), 'Open in Temporal') : ''],
  ];
  const request = input?.request ? `<div class="md request-text">${markdown(context.redact(clip(input.request, 2_000).text))}</div>` : '';
  const failure = session.failure ? `<p class="error">${esc(context.redact(session.failure))}</p>` : '';
  return `<p class="state">${status}${session.open ? ' <span class="live-dot" aria-hidden="true"></span>' : ''}</p>${request}${failure}${facts(list)}`;
}

function timeline(session: UnitSession, context: RenderContext): Block {
  const entries = session.timeline.map((entry, index) => {
    const next = session.timeline[index + 1]?.at ?? session.closedAt ?? context.now;
    const current = session.open && index === session.timeline.length - 1;
    return `<li${current ? ' class="current" aria-current="step"' : ''}>${esc(entry.phase)} ${timeTag(entry.at)} <span class="muted">${esc(duration(next - entry.at))}</span></li>`;
  });
  return { id: 'timeline-list', html: `<ol class="timeline">${entries.join('') || '<li>starting</li>'}</ol>` };
}

function renderRound(round: UnitRound, context: RenderContext): string {
  const title = round.round === 0 ? 'Before the first coding round' : `Round ${round.round}`;
  return `<article class="item round"><h3>${title}</h3>${round.items.map((item) => renderItem(item, context)).join('')}</article>`;
}

function renderItem(item: UnitItem, context: RenderContext): string {
  const { redact } = context;
  switch (item.kind) {
    case 'run':
      return `<div class="unit-run">${renderChild(item.child, context, `${item.role} run`)}${item.review ? findings(item.review, context) : ''}</div>`;
    case 'commit':
      return line(
        'Commit',
        item.result
          ? `${item.result.changed ? 'changes committed' : 'no change'} · head <code>${esc(item.result.headSha.slice(0, 12))}</code>`
          : pending(item),
        item.at,
      );
    case 'push':
      return line('Push', item.result ? effect(item.result.status, item.result.reason, context) : pending(item), item.at);
    case 'pullRequest':
      return line(
        'Pull request',
        item.result
          ? `${effect(item.result.status, item.result.reason, context)}${item.result.number ? ` #${item.result.number}` : ''}${item.title ? ` · ${esc(redact(item.title))}` : ''}`
          : pending(item),
        item.at,
      );
    case 'reviewPosted':
      return (
        `<details class="posted" data-key="p${item.activity.scheduledId}"><summary><strong>Review posted</strong> ${timeTag(item.at)} ` +
        `${item.result ? effect(item.result.status, item.result.reason, context) : pending(item)}${item.sha ? ` on <code>${esc(item.sha.slice(0, 12))}</code>` : ''}</summary>` +
        `<div class="md">${markdown(redact(clip(item.body, 6_000).text))}</div></details>`
      );
    case 'checks': {
      const result = item.result;
      const runs = result?.checkRuns.map((run) => `${esc(run.name)}: ${esc(run.conclusion ?? run.status)}`).join(', ');
      return line(
        'Checks',
        result ? `${badge(result.overall, toneOf(result.overall))}${runs ? ` · ${runs}` : ' · none reported yet'}` : pending(item),
        item.at,
      );
    }
    case 'signal':
      return line('Event', esc(redact(item.text)), item.at);
    case 'steer':
      return `<div class="item steer"><p>✋ <strong>Steer</strong>${item.by ? ` from ${esc(redact(item.by))}` : ''} ${timeTag(item.at)}</p><div class="md">${markdown(redact(item.text))}</div></div>`;
    case 'stop':
      return `<div class="item stop"><p>■ <strong>Stop</strong>${item.by ? ` by ${esc(redact(item.by))}` : ''} ${timeTag(item.at)}${item.reason ? `: ${esc(redact(item.reason))}` : ''}</p></div>`;
    case 'report':
      return `<details class="posted" data-key="m${item.activity.scheduledId}"><summary><strong>Report to the ${item.where}</strong> ${timeTag(item.at)}</summary><div class="md">${markdown(redact(clip(item.text, 6_000).text))}</div></details>`;
    case 'continued':
      return `<p class="item note">The unit went on in a fresh execution (continue-as-new) ${timeTag(item.at)}.</p>`;
  }
}

function findings(review: NonNullable<Extract<UnitItem, { kind: 'run' }>['review']>, context: RenderContext): string {
  const { redact } = context;
  const list = review.findings
    .map(
      (finding) =>
        `<li>${badge(finding.severity, finding.severity === 'nit' ? 'plain' : finding.severity === 'minor' ? 'warn' : 'bad')} ` +
        `<code>${esc(redact(`${finding.path}:${finding.line}`))}</code> <strong>${esc(redact(finding.title))}</strong>` +
        `<br><span class="muted">Scenario:</span> ${esc(redact(finding.scenario))}<br><span class="muted">Impact:</span> ${esc(redact(finding.impact))}</li>`,
    )
    .join('');
  return (
    `<div class="review"><p>Verdict ${badge(review.verdict.replace('_', ' '), toneOf(review.verdict))} · ${plural(review.findings.length, 'finding')}</p>` +
    `<div class="md">${markdown(redact(review.summary))}</div>${list ? `<ol class="findings">${list}</ol>` : ''}</div>`
  );
}

function reportBlock(session: UnitSession, context: RenderContext): Block | undefined {
  const text = session.record?.report;
  if (!text?.trim()) return undefined;
  return { id: 'report-text', html: `<div class="md answer">${markdown(context.redact(text))}</div>` };
}

function line(name: string, html: string, at: number): string {
  return `<p class="unit-line"><strong>${name}</strong> ${timeTag(at)} · ${html}</p>`;
}

function effect(status: string, reason: string | undefined, context: RenderContext): string {
  return `${badge(status, toneOf(status))}${reason ? ` <span class="muted">${esc(context.redact(reason))}</span>` : ''}`;
}

function pending(item: { activity: { state: string; error?: string } }): string {
  return item.activity.state === 'failed' || item.activity.state === 'timedOut'
    ? badge(item.activity.state, 'bad')
    : badge(item.activity.state === 'running' ? 'running' : 'waiting', 'live');
}

function link(url: string | undefined, text: string): string {
  return url ? `<a href="${esc(url)}" rel="noopener noreferrer">${esc(text)}</a>` : esc(text);
}
