import { terminalText } from './terminal-text';
import type { BashResult, FileResult, JobStatus } from '../../../workflows/contracts/sandbox';
import { isUnreadable } from '../../../infra/history/events';
import type { CallView } from '../model/run-session';
import type { ActivityView, ChildView } from '../model/trace';
import { badge, clip, duration, esc, pageLink, timeTag } from './html';
import { markdown } from './markdown';
import type { RenderContext } from './parts';

/** How much of a call's output a turn shows; the rest is one link away. */
export const OUTPUT_PREVIEW_CHARS = 1_200;
const INPUT_CHARS = 1_500;

/** One tool call: a line that says what it did and how it went, its input and output collapsed under it. */
export function renderCall(call: CallView, runId: string, context: RenderContext, brief: boolean): string {
  const { redact } = context;
  const activity = call.activities[call.activities.length - 1];
  const outcome = callOutcome(call, activity);
  const summary =
    `<span class="tool">${esc(call.name)}</span> <span class="what">${esc(redact(oneLine(describeInput(call), 140)))}</span>` +
    ` ${outcome}`;
  // An older turn's call keeps its line and a link to its output: a long run's page stays small.
  const body = [
    brief ? '' : inputBlock(call, context),
    ...call.activities.map((a) => outputBlock(a, runId, context, brief)),
    call.error ? `<p class="error">${esc(redact(call.error))}</p>` : '',
    call.child ? renderChild(call.child, context) : '',
  ].join('');
  const key = activity ? `a${activity.scheduledId}` : `c${esc(call.id).slice(0, 40)}`;
  return `<details class="call" data-key="${key}"><summary>${summary}</summary>${body}</details>`;
}

function callOutcome(call: CallView, activity: ActivityView | undefined): string {
  if (call.error) return badge('failed', 'bad');
  if (call.child) return badge(childWord(call.child), toneOf(call.child.state));
  if (!activity) return '';
  if (activity.state === 'scheduled' || activity.state === 'running') return badge('running', 'live');
  if (activity.state !== 'completed') return badge(activity.state === 'timedOut' ? 'timed out' : activity.state, 'bad');
  const result = activity.result as Partial<BashResult> & Partial<{ ok: boolean }> & Partial<JobStatus>;
  const took = activity.startedAt && activity.endedAt ? duration(activity.endedAt - activity.startedAt) : '';
  if (activity.type === 'bash' && typeof result?.exitCode === 'number') {
    const code = `exit ${result.exitCode}${result.timedOut ? ' (timed out)' : ''}`;
    return `${badge(code, result.exitCode === 0 ? 'good' : 'bad')} <span class="took">${esc(duration(result.durationMs) || took)}</span>`;
  }
  if (result && result.ok === false) return badge('failed', 'bad');
  return `${badge('done', 'good')} <span class="took">${esc(took)}</span>`;
}

/** The input in a line: a command, a path, a query, a task; else its JSON. */
function describeInput(call: CallView): string {
  const input = (call.input ?? {}) as Record<string, unknown>;
  for (const key of ['command', 'path', 'pattern', 'glob', 'query', 'url', 'summary', 'title', 'prompt', 'text', 'unitId', 'repo']) {
    if (typeof input[key] === 'string' && input[key]) return String(input[key]);
  }
  return JSON.stringify(input);
}

function inputBlock(call: CallView, context: RenderContext): string {
  const input = (call.input ?? {}) as Record<string, unknown>;
  if (call.name === 'bash' && typeof input.command === 'string') return pre('command', input.command, context, INPUT_CHARS);
  if (call.name === 'write_file' && typeof input.path === 'string') {
    const content = typeof input.content === 'string' ? input.content : '';
    return `<p class="io">writes <code>${esc(context.redact(input.path))}</code> (${Buffer.byteLength(content)} bytes)</p>${pre('content', content, context, INPUT_CHARS)}`;
  }
  if (call.name === 'submit_review' || call.name === 'submit_description') return submission(input, context);
  return pre('input', JSON.stringify(call.input, null, 2) ?? '', context, INPUT_CHARS);
}

function submission(input: Record<string, unknown>, context: RenderContext): string {
  const words = (value: unknown) => (typeof value === 'string' ? value : '');
  const text = [input.title ? `**${words(input.title)}**` : '', words(input.summary) || words(input.body)].filter(Boolean).join('\n\n');
  return `<div class="md submission">${markdown(context.redact(text))}</div>`;
}

/** What an activity answered, bounded; `brief` keeps only the link to the whole. */
function outputBlock(activity: ActivityView, runId: string, context: RenderContext, brief: boolean): string {
  if (activity.state === 'failed' || activity.state === 'timedOut')
    return `<p class="error">${esc(context.redact(activity.error ?? activity.state))}</p>`;
  if (activity.state !== 'completed') return '';
  if (isUnreadable(activity.result)) return `<p class="error">output unreadable: ${esc(activity.result.unreadable)}</p>`;
  const text = outputText(activity);
  if (!text) return '';
  const whole = `<a class="whole" href="${pageLink(runId, `/output/${encodeURIComponent(activity.execution.slice(0, 8))}/${activity.scheduledId}`)}">whole output</a>`;
  if (brief) return `<p class="io">output: ${text.split('\n').length} lines · ${whole}</p>`;
  const shown = clip(context.redact(text), OUTPUT_PREVIEW_CHARS, 0.3);
  return `<pre class="out" aria-label="output">${esc(shown.text)}</pre>${shown.cut ? `<p class="io">${whole}</p>` : ''}`;
}

/**
 * An activity's answer as the text a person reads (the whole of it: the output route serves this
 * too), a command's terminal escapes applied rather than shown as boxes.
 */
export function outputText(activity: ActivityView): string {
  return terminalText(rawOutput(activity));
}

function rawOutput(activity: ActivityView): string {
  const result = activity.result as Record<string, unknown> | undefined;
  if (result === undefined || result === null) return '';
  if (activity.type === 'bash') {
    const bash = result as unknown as BashResult;
    return [bash.output ?? '', bash.truncated ? '[output truncated by the sandbox]' : '', bash.hint ?? ''].filter(Boolean).join('\n');
  }
  if (activity.type === 'readFile' || activity.type === 'writeFile') {
    const file = result as unknown as FileResult;
    if (!file.ok) return `${file.code}: ${file.error}`;
    return file.content !== undefined ? file.content : `${file.bytes} bytes at ${file.path}`;
  }
  if (activity.type === 'jobStatus') {
    const job = result as unknown as JobStatus;
    return `${job.done ? `done, exit code ${job.exitCode ?? 'unknown'}` : 'still running'}${job.logTail ? `\n${job.logTail}` : ''}`;
  }
  return typeof result === 'string' ? result : JSON.stringify(result, null, 2);
}

function pre(label: string, text: string, context: RenderContext, max: number): string {
  return `<pre class="in" aria-label="${label}">${esc(clip(context.redact(text), max).text)}</pre>`;
}

/** A child run where it was started: its agent, how it ended, its answer, and a link to its own page. */
export function renderChild(child: ChildView, context: RenderContext, label?: string): string {
  const record = child.record;
  const agent = record?.profile.agent ?? child.workflowId.split('/').pop() ?? '';
  const answer = record?.finalText?.trim();
  const outcome = record?.outcome ?? child.state;
  return (
    `<div class="child"><p>↳ <a href="${pageLink(child.workflowId)}">${esc(label ?? `${agent} run`)}</a> ${timeTag(child.at)} ` +
    `<code>${esc(child.workflowId)}</code> ${badge(childWord(child), toneOf(outcome))}</p>` +
    (answer ? `<div class="md">${markdown(context.redact(clip(answer, 1_500).text))}</div>` : '') +
    (child.message ? `<p class="error">${esc(context.redact(child.message))}</p>` : '') +
    '</div>'
  );
}

function childWord(child: ChildView): string {
  if (child.record) return child.record.outcome;
  return child.state === 'starting' ? 'starting' : child.state;
}

export function toneOf(state: string): 'live' | 'good' | 'bad' | 'warn' | 'plain' {
  if (['running', 'starting', 'scheduled', 'thinking'].includes(state)) return 'live';
  if (['completed', 'done', 'merged', 'confirmed', 'success', 'approve'].includes(state)) return 'good';
  if (['failed', 'timedOut', 'terminated', 'failure', 'refused', 'unconfirmed'].includes(state)) return 'bad';
  if (['canceled', 'stopped', 'budget', 'turns', 'tokens', 'spend', 'out_of_rounds', 'idle_expired', 'request_changes'].includes(state))
    return 'warn';
  return 'plain';
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
