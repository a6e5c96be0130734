import { msToNumber } from '@temporalio/common/lib/time';
import type { ModelTurnResult, ToolCall } from '../../../workflows/contracts/model';
import { POLICIES } from '../../../workflows/activity-proxies';
import {
  steerSignal,
  steerUpdate,
  stopSignal,
  type RunInput,
  type RunRecord,
  type RunStatus,
  type StatusStep,
  type SteerInput,
  type StopInput,
  type TokenTotals,
} from '../../../workflows/contracts';
import type { Execution, SessionEvent } from '../../../infra/history/events';
import type { BoardEntry } from '../../../workflows/contracts/board';
import { activityTypesOf, HOUSEKEEPING } from './tool-activities';
import { isRunRecord, nextTimer, objectOf, Trace, type ActivityView, type ChildView, type PendingTimer } from './trace';

/** One tool call of a turn, with the activities it made and the child run it started. */
export interface CallView {
  id: string;
  name: string;
  input: unknown;
  activities: ActivityView[];
  child?: ChildView;
  /** The run's record says the call failed or was refused (a closed run's `toolCalls`). */
  error?: string;
}

export interface TurnItem {
  kind: 'turn';
  at: number;
  /** The turn's number (a compaction does not count, as in the run's own count). */
  turn: number;
  purpose: 'turn' | 'compaction' | 'closing';
  state: 'thinking' | 'done' | 'failed' | 'canceled';
  endedAt?: number;
  text: string;
  calls: CallView[];
  usage?: { input: number; output: number; cacheRead: number; cacheWrite: number; costUsd?: number; model: string };
  error?: string;
  /** Children the turn started that no call claimed. */
  children: ChildView[];
}

export type RunItem =
  | { kind: 'request'; at: number; text: string; context: number }
  | TurnItem
  | { kind: 'steer'; at: number; text: string; by?: string }
  | { kind: 'stop'; at: number; reason?: string; by?: string }
  | { kind: 'continued'; at: number }
  | { kind: 'omitted'; executions: number };

export interface RunSession {
  kind: 'run';
  workflowId: string;
  open: boolean;
  input?: RunInput;
  startedAt: number;
  deadline?: number;
  closedAt?: number;
  turns: number;
  tokens: TokenTotals;
  costUsd: number;
  unpriced: string[];
  items: RunItem[];
  record?: RunRecord;
  /** How the workflow closed, when it did not complete with a record. */
  closedStatus?: string;
  failure?: string;
  status?: RunStatus;
  nextTimer?: PendingTimer & { label: string };
  filesWritten: Array<{ path: string; bytes: number; turn: number }>;
  /** Children of every turn, in the order they started. */
  children: ChildView[];
  /** The team board the run read before its first turn: the board, and its entries as they were then. */
  board?: { id: string; entries: BoardEntry[] };
}

/**
 * The run's checklist as `update_status` last set it: the live status's while the run works, else
 * the last call that carried steps (a closed run's page reads it from its history).
 */
export function checklistOf(session: Pick<RunSession, 'status' | 'items'>): StatusStep[] | undefined {
  if (session.status?.steps?.length) return session.status.steps;
  for (const item of [...session.items].reverse()) {
    if (item.kind !== 'turn') continue;
    for (const call of [...item.calls].reverse()) {
      const steps = call.name === 'update_status' ? (call.input as { steps?: unknown } | undefined)?.steps : undefined;
      if (Array.isArray(steps) && steps.every((step) => typeof step?.title === 'string' && typeof step?.state === 'string'))
        return steps as StatusStep[];
    }
  }
  return undefined;
}

const MINUTE = 60_000;
const CLOSING_TIMEOUT_MS = msToNumber(POLICIES.closingSummary.startToCloseTimeout);

/**
 * A run's session from its executions (oldest first; continue-as-new makes several): the
 * request, each model turn with its tool calls and what they did, steers and stops where they
 * arrived, children where they were started, and the record once it closed. `status` is the
 * live `status` query's answer for an open run.
 */
export function buildRunSession(
  workflowId: string,
  executions: readonly Execution[],
  options: { status?: RunStatus; omitted?: number } = {},
): RunSession {
  const session: RunSession = {
    kind: 'run',
    workflowId,
    open: true,
    startedAt: 0,
    turns: 0,
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    costUsd: 0,
    unpriced: [],
    items: [],
    filesWritten: [],
    children: [],
  };
  executions.forEach((execution, index) => readExecution(session, execution, index === 0));
  // Continue-as-new executions the page did not read: said after the request, where their turns were.
  if (options.omitted) session.items.splice(1, 0, { kind: 'omitted', executions: options.omitted });
  if (options.status) {
    session.status = options.status;
    // The query is the run's own count: it includes turns of executions this page did not read.
    session.turns = Math.max(session.turns, options.status.turns);
  }
  return session;
}

function readExecution(session: RunSession, execution: Execution, first: boolean): void {
  const { events } = execution;
  const trace = new Trace(events, execution.runId);
  const turnOf = new Map<number, TurnItem>();
  let current: TurnItem | undefined;
  // The team board's read before the first turn: its scheduled event, by id, and the board it read.
  const readsBoard = new Map<number, string>();
  let lastResult: { item: TurnItem; result: ModelTurnResult; index: number } | undefined;
  events.forEach((event, index) => {
    switch (event.kind) {
      case 'started': {
        const input = objectOf<RunInput>(event.input);
        if (!input) return;
        // A continuation counts on from its carry (the run's own count, whatever this page read before).
        if (!first) return void (session.turns = input.carry?.turns ?? session.turns);
        session.input = input;
        session.startedAt = input.carry?.startedAt ?? event.at;
        session.deadline = input.carry?.deadline ?? session.startedAt + input.profile.budget.minutes * MINUTE;
        // The first execution read may be a continuation (earlier ones left out): it counts on from its carry.
        session.turns = input.carry?.turns ?? 0;
        session.items.push({ kind: 'request', at: event.at, text: input.request, context: input.context.length });
        return;
      }
      case 'activityScheduled': {
        if (event.activityType === 'modelTurn') {
          if (lastResult && isCompaction(events, lastResult.index, index, lastResult.result)) demoteToCompaction(session, lastResult.item);
          lastResult = undefined;
          current = {
            kind: 'turn',
            at: event.at,
            turn: session.turns + 1,
            purpose: event.startToCloseMs === CLOSING_TIMEOUT_MS ? 'closing' : 'turn',
            state: 'thinking',
            text: '',
            calls: [],
            children: [],
          };
          turnOf.set(event.id, current);
          session.items.push(current);
          return;
        }
        if (event.activityType === 'readBoard') readsBoard.set(event.id, objectOf<{ boardId: string }>(event.input)?.boardId ?? '');
        if (HOUSEKEEPING.has(event.activityType) || !current) return;
        const activity = trace.activities.get(event.id)!;
        const call = claimant(current, event.activityType);
        if (call) call.activities.push(activity);
        if (event.activityType === 'writeFile') recordWrite(session, activity, current.turn);
        return;
      }
      case 'activityCompleted':
      case 'activityFailed':
      case 'activityTimedOut':
      case 'activityCanceled': {
        const boardId = readsBoard.get(event.scheduledId);
        const read = event.kind === 'activityCompleted' ? objectOf<{ entries: BoardEntry[] }>(event.result) : undefined;
        if (boardId && read) session.board = { id: boardId, entries: read.entries ?? [] };
        const turn = turnOf.get(event.scheduledId);
        if (!turn) return;
        turn.endedAt = event.at;
        if (event.kind !== 'activityCompleted') {
          turn.state = event.kind === 'activityCanceled' ? 'canceled' : 'failed';
          if (event.kind !== 'activityCanceled') turn.error = event.message;
          return;
        }
        const result = objectOf<ModelTurnResult>(event.result);
        if (!result) return;
        applyResult(session, turn, result);
        lastResult = { item: turn, result, index };
        return;
      }
      case 'signal':
      case 'updateAccepted':
        if (event.name === steerSignal.name || event.name === steerUpdate.name) {
          const steer = objectOf<SteerInput>(event.input);
          if (steer?.text) session.items.push({ kind: 'steer', at: event.at, text: steer.text, ...(steer.by ? { by: steer.by } : {}) });
        } else if (event.kind === 'signal' && event.name === stopSignal.name) {
          session.items.push(stopItem(event.at, objectOf<StopInput>(event.input)));
        }
        return;
      case 'cancelRequested':
        session.items.push({
          kind: 'stop',
          at: event.at,
          reason: 'the workflow was cancelled',
          ...(event.identity ? { by: event.identity } : {}),
        });
        return;
      case 'childInitiated': {
        const child = trace.children.get(event.id)!;
        session.children.push(child);
        const call = current?.calls.find((candidate) => candidate.name === 'task' && !candidate.child);
        if (call) call.child = child;
        else current?.children.push(child);
        return;
      }
      case 'closed':
        closeExecution(session, event);
        return;
      default:
        return;
    }
  });
  // An execution that continued as new left its timers behind; the next one has its own.
  const timer = events[events.length - 1]?.kind === 'closed' ? undefined : nextTimer(trace);
  delete session.nextTimer;
  if (session.open && timer) session.nextTimer = { ...timer, label: timer.fireAt === session.deadline ? 'the budget ends' : 'a wait ends' };
}

function applyResult(session: RunSession, turn: TurnItem, result: ModelTurnResult): void {
  turn.state = 'done';
  turn.text = result.text ?? '';
  turn.calls = (result.toolCalls ?? []).map((call: ToolCall) => ({ id: call.id, name: call.name, input: call.input, activities: [] }));
  const usage = result.usage ?? { inputTokens: 0, outputTokens: 0 };
  turn.usage = {
    model: result.model,
    input: usage.inputTokens,
    output: usage.outputTokens,
    cacheRead: usage.cacheReadTokens ?? 0,
    cacheWrite: usage.cacheWriteTokens ?? 0,
    ...(result.costUsd !== undefined ? { costUsd: result.costUsd } : {}),
  };
  session.tokens.input += turn.usage.input;
  session.tokens.output += turn.usage.output;
  session.tokens.cacheRead += turn.usage.cacheRead;
  session.tokens.cacheWrite += turn.usage.cacheWrite;
  if (result.costUsd !== undefined) session.costUsd = Math.round((session.costUsd + result.costUsd) * 1e6) / 1e6;
  else if (result.model && !session.unpriced.includes(result.model)) session.unpriced.push(result.model);
  session.turns = turn.turn;
}

/**
 * A turn without tool calls that is followed at once by another model turn, with nothing in
 * between that would make the run go on (a steer, a child's end, the deadline), was the
 * compaction turn: it summarised older turns before the next real one (run/run-loop.ts).
 */
function isCompaction(events: readonly SessionEvent[], from: number, to: number, result: ModelTurnResult): boolean {
  if ((result.toolCalls ?? []).length > 0 || result.stopReason === 'max_tokens') return false;
  for (let i = from + 1; i < to; i += 1) {
    const event = events[i];
    if (event.kind === 'signal' || event.kind === 'updateAccepted' || event.kind === 'childClosed' || event.kind === 'timerFired')
      return false;
    if (event.kind === 'activityScheduled' && !HOUSEKEEPING.has(event.activityType)) return false;
  }
  return true;
}

function demoteToCompaction(session: RunSession, item: TurnItem): void {
  if (item.purpose !== 'turn') return;
  item.purpose = 'compaction';
  session.turns -= 1;
}

/** The first call of the turn that can have made an activity of this type and has not made its one yet. */
function claimant(turn: TurnItem, activityType: string): CallView | undefined {
  return turn.calls.find((call) => {
    const made = activityTypesOf(call.name);
    return made.types.includes(activityType) && (made.many || call.activities.length === 0);
  });
}

function recordWrite(session: RunSession, activity: ActivityView, turn: number): void {
  const input = objectOf<{ path?: string; content?: string }>(activity.input);
  if (!input?.path) return;
  session.filesWritten.push({ path: input.path, bytes: Buffer.byteLength(input.content ?? ''), turn });
}

function stopItem(at: number, stop: StopInput | undefined): RunItem {
  return { kind: 'stop', at, ...(stop?.reason ? { reason: stop.reason } : {}), ...(stop?.by ? { by: stop.by } : {}) };
}

function closeExecution(session: RunSession, event: Extract<SessionEvent, { kind: 'closed' }>): void {
  if (event.status === 'continuedAsNew') {
    session.items.push({ kind: 'continued', at: event.at });
    return;
  }
  session.open = false;
  session.closedAt = event.at;
  if (event.status === 'completed' && isRunRecord(event.result)) {
    session.record = event.result;
    markFailedCalls(session, event.result);
    return;
  }
  session.closedStatus = event.status;
  if (event.message) session.failure = event.message;
}

/** The record lists each tool call's success by turn: the calls that failed or were refused say why. */
function markFailedCalls(session: RunSession, record: RunRecord): void {
  const byTurn = new Map<number, RunRecord['toolCalls']>();
  for (const call of record.toolCalls ?? []) byTurn.set(call.turn, [...(byTurn.get(call.turn) ?? []), call]);
  for (const item of session.items) {
    if (item.kind !== 'turn' || item.purpose !== 'turn') continue;
    const recorded = byTurn.get(item.turn) ?? [];
    item.calls.forEach((call, index) => {
      const entry = recorded[index];
      if (entry && entry.name === call.name && !entry.ok && entry.error) call.error = entry.error;
    });
  }
}
