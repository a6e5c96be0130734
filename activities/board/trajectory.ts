import { redactShapes } from '../../agents/secret-shapes';
import { isUnreadable, type Execution, type SessionEvent } from '../../infra/history/events';

/**
 * A finished piece of work's trajectory as rem-agent reads it: from the same decoded histories the
 * session pages read (infra/history/), what was asked, what each model turn said and called, what
 * the calls answered (cut short), what people said on the way (steers, reviews), the findings a
 * review posted, and how it ended. Pure: the activity reads the executions (board-activities.ts).
 * Every line is cleaned of credentials; the whole is bounded by the caller.
 */

/** One call's input or answer is cut to this; a turn's words to `TEXT_CHARS`. */
const CALL_CHARS = 400;
const TEXT_CHARS = 2_000;

type Kind = 'run' | 'unit' | 'thread' | 'other';

export interface TrajectoryPart {
  workflowId: string;
  kind: Kind;
  lines: string[];
  /** Child workflows it started (a unit's runs, a thread's runs, a run's task children), in order. */
  children: string[];
}

export function kindOf(workflowType: string): Kind {
  if (workflowType === 'agentRunWorkflow') return 'run';
  if (workflowType === 'shipUnitWorkflow') return 'unit';
  if (workflowType === 'threadWorkflow') return 'thread';
  return 'other';
}

/** The trajectory lines of one workflow's executions (oldest first). */
export function trajectoryOf(workflowId: string, workflowType: string, executions: readonly Execution[]): TrajectoryPart {
  const kind = kindOf(workflowType);
  const lines: string[] = [];
  const children: string[] = [];
  executions.forEach((execution, index) => {
    const scheduled = new Map<number, { type: string; input: unknown }>();
    const initiated = new Map<number, string>();
    for (const event of execution.events) read(event, index === 0, scheduled, initiated);
  });
  return { workflowId, kind, lines, children };

  function read(
    event: SessionEvent,
    first: boolean,
    scheduled: Map<number, { type: string; input: unknown }>,
    initiated: Map<number, string>,
  ) {
    switch (event.kind) {
      case 'started': {
        const input = objectOf(event.input);
        if (!first || !input) return;
        const request = typeof input.request === 'string' ? input.request : undefined;
        const who = objectOf(input.requester)?.id;
        if (request)
          lines.push(`${kind === 'unit' ? 'Unit request' : 'Request'}${who ? ` from ${words(who)}` : ''}: ${clip(request, TEXT_CHARS)}`);
        return;
      }
      case 'activityScheduled':
        scheduled.set(event.id, { type: event.activityType, input: event.input });
        if (event.activityType === 'postReview') lines.push(`Review posted: ${reviewWords(event.input)}`);
        return;
      case 'activityCompleted': {
        const call = scheduled.get(event.scheduledId);
        if (!call) return;
        if (call.type === 'modelTurn') return modelTurn(event.result);
        if (kind === 'run' && !HOUSEKEEPING.has(call.type)) lines.push(`  → ${call.type}: ${clip(answerWords(event.result), CALL_CHARS)}`);
        return;
      }
      case 'activityFailed':
      case 'activityTimedOut': {
        const call = scheduled.get(event.scheduledId);
        if (call && call.type !== 'modelTurn' && !HOUSEKEEPING.has(call.type))
          lines.push(`  → ${call.type} failed: ${clip(event.message, CALL_CHARS)}`);
        return;
      }
      case 'signal':
      case 'updateAccepted': {
        const input = objectOf(event.input);
        if (event.name === 'steer' && typeof input?.text === 'string')
          lines.push(`Steer${typeof input.by === 'string' ? ` from ${input.by}` : ''}: ${clip(input.text, TEXT_CHARS)}`);
        else if (event.name === 'prEvent' && input?.kind === 'review')
          lines.push(`A person's review (${words(input.reviewState, 'commented')}) by ${words(input.actor, 'someone')}`);
        else if (event.name === 'message' || event.name === 'sendMessage') {
          const who = objectOf(input?.requester)?.id;
          if (typeof input?.text === 'string') lines.push(`Message${who ? ` from ${words(who)}` : ''}: ${clip(input.text, TEXT_CHARS)}`);
        }
        return;
      }
      case 'childInitiated':
        initiated.set(event.id, event.workflowId);
        if (!children.includes(event.workflowId)) children.push(event.workflowId);
        return;
      case 'childClosed': {
        const record = objectOf(event.result);
        const id = initiated.get(event.initiatedId);
        if (record && id) lines.push(`Run ${id} ended ${words(record.outcome, event.status)}.`);
        return;
      }
      case 'closed': {
        const result = objectOf(event.result);
        if (event.status === 'continuedAsNew') return;
        if (kind === 'run' && result) {
          lines.push(
            `Run ended ${words(result.outcome, event.status)}${typeof result.endedBy === 'string' ? ` (${result.endedBy})` : ''}.`,
          );
          if (typeof result.finalText === 'string' && result.finalText.trim()) lines.push(`Answer: ${clip(result.finalText, TEXT_CHARS)}`);
        } else if (kind === 'unit' && result) {
          lines.push(`Unit settled ${words(result.outcome, event.status)}.`);
          if (typeof result.report === 'string') lines.push(`Report: ${clip(result.report, TEXT_CHARS)}`);
        } else lines.push(`Ended ${event.status}${event.message ? `: ${clip(event.message, CALL_CHARS)}` : ''}.`);
        return;
      }
      default:
        return;
    }
  }

  function modelTurn(result: unknown): void {
    const turn = objectOf(result);
    if (!turn) return;
    if (typeof turn.text === 'string' && turn.text.trim()) lines.push(`Model: ${clip(turn.text, TEXT_CHARS)}`);
    for (const call of Array.isArray(turn.toolCalls) ? turn.toolCalls : []) {
      const c = objectOf(call);
      if (c) lines.push(`  call ${words(c.name)} ${clip(JSON.stringify(c.input ?? {}), CALL_CHARS)}`);
    }
  }
}

/** The activities that are a run's own housekeeping, never a tool's answer. */
const HOUSEKEEPING = new Set([
  'statusCard',
  'prepareWorkspace',
  'closeWorkspace',
  'releaseWorkspace',
  'loadAgentSetup',
  'vetRepository',
  'runProgress',
  'deliverReply',
  'repoSettings',
  'loadInstructions',
  'readBoard',
]);

function reviewWords(input: unknown): string {
  const review = objectOf(input);
  if (!review) return '(unreadable)';
  const findings = Array.isArray(review.findings) ? review.findings : [];
  const listed = findings
    .map((finding) => objectOf(finding))
    .filter((finding): finding is Record<string, unknown> => finding !== undefined)
    .map((f) => `[${words(f.severity)}] ${words(f.path)}:${words(f.line)} ${words(f.title)}`);
  const verdict = typeof review.verdict === 'string' ? review.verdict : typeof review.event === 'string' ? review.event : 'review';
  return clip(`${verdict}${listed.length ? `; findings: ${listed.join('; ')}` : ''}`, TEXT_CHARS);
}

function answerWords(result: unknown): string {
  if (isUnreadable(result)) return '(unreadable)';
  const value = objectOf(result);
  if (value && typeof value.output === 'string')
    return `${value.exitCode !== undefined ? `exit ${words(value.exitCode)}: ` : ''}${value.output}`;
  if (value && typeof value.content === 'string') return value.content;
  return typeof result === 'string' ? result : JSON.stringify(result ?? null);
}

/** A plain value in words (a string, number or boolean), else `fallback`. */
function words(value: unknown, fallback = ''): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : fallback;
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isUnreadable(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** One line, cleaned of credentials, cut to `max` characters. */
export function clip(text: string, max: number): string {
  const line = redactShapes(text).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}… [${line.length - max} more characters]` : line;
}

/** The parts as one text of at most `maxChars`: each part gets an equal share, its lines' head and tail kept. */
export function boundTrajectory(parts: readonly TrajectoryPart[], maxChars: number): string {
  if (parts.length === 0) return '(no finished work could be read)';
  const share = Math.max(500, Math.floor(maxChars / parts.length));
  return parts
    .map((part) => {
      const head = `### ${part.kind} ${part.workflowId}`;
      const body = part.lines.join('\n');
      if (body.length <= share) return `${head}\n${body}`;
      const keep = Math.floor((share - 80) / 2);
      return `${head}\n${body.slice(0, keep)}\n[… ${body.length - 2 * keep} characters of this trajectory left out …]\n${body.slice(-keep)}`;
    })
    .join('\n\n')
    .slice(0, maxChars + 200 * parts.length);
}
