import type { ReplyInput } from '../../../workflows/contracts/status';
import type { StartUnitResult } from '../../../workflows/contracts/unit-client';
import type { RunOutcome, StartRunResult } from '../../../workflows/contracts/run-start';
import {
  agentRunWorkflowType,
  messageSignal,
  runEndedSignal,
  sendMessageUpdate,
  stopSignal,
  type MessageOutcome,
  type RunEnded,
  type ShipUnitInput,
  type StopInput,
  type ThreadInput,
  type ThreadMessage,
  type ThreadState,
} from '../../../workflows/contracts';
import type { Execution, SessionEvent } from '../../../infra/history/events';
import { isRunRecord, objectOf, Trace, type ChildView } from './trace';

export type ThreadItem =
  | { kind: 'message'; at: number; message: ThreadMessage; outcome?: MessageOutcome }
  | { kind: 'run'; at: number; child: ChildView }
  | { kind: 'unit'; at: number; unitId: string; status?: StartUnitResult['status']; reason?: string }
  | { kind: 'reply'; at: number; text: string; refused: boolean }
  | { kind: 'stop'; at: number; reason?: string; by?: string }
  | { kind: 'earlier'; exchanges: NonNullable<ThreadInput['carry']>['saved'] }
  | { kind: 'continued'; at: number };

export interface ThreadSession {
  kind: 'thread';
  workflowId: string;
  open: boolean;
  startedAt: number;
  closedAt?: number;
  items: ThreadItem[];
  state?: ThreadState;
  closedStatus?: string;
  failure?: string;
  /** The runs and units this thread started, in order: a page links them. */
  runIds: string[];
  unitIds: string[];
}

/**
 * A thread's session: each message as it came in with the thread's decision, the runs it
 * started (with their answers) and the units, its replies and refusals, and the exchanges of
 * earlier executions it carries. `state` is the live `state` query's answer.
 */
export function buildThreadSession(
  workflowId: string,
  executions: readonly Execution[],
  options: { state?: ThreadState } = {},
): ThreadSession {
  const session: ThreadSession = { kind: 'thread', workflowId, open: true, startedAt: 0, items: [], runIds: [], unitIds: [] };
  const byUpdate = new Map<string, Extract<ThreadItem, { kind: 'message' }>>();
  // Runs started by a local activity (eager start), by run id: their end comes by signal (or the run watch's look).
  const started = new Map<string, ChildView>();
  executions.forEach((execution, index) => {
    const trace = new Trace(execution.events, execution.runId);
    for (const event of execution.events) read(event, index === 0, trace);
  });
  if (options.state) {
    session.state = options.state;
    // Decisions the thread made for messages signalled in (no update answer in history).
    for (const outcome of options.state.outcomes) {
      const item = session.items.find((candidate) => candidate.kind === 'message' && candidate.message.messageId === outcome.messageId);
      if (item?.kind === 'message') item.outcome ??= outcome;
    }
  }
  return session;

  function read(event: SessionEvent, first: boolean, trace: Trace): void {
    switch (event.kind) {
      case 'started': {
        const input = objectOf<ThreadInput>(event.input);
        if (!first || !input) return;
        session.startedAt = event.at;
        if (input.carry?.saved.length) session.items.push({ kind: 'earlier', exchanges: input.carry.saved });
        for (const outcome of input.carry?.outcomes ?? []) {
          if (outcome.runId && !session.runIds.includes(outcome.runId)) session.runIds.push(outcome.runId);
          if (outcome.unitId && !session.unitIds.includes(outcome.unitId)) session.unitIds.push(outcome.unitId);
        }
        return;
      }
      case 'signal':
        if (event.name === messageSignal.name) addMessage(event.at, objectOf<ThreadMessage>(event.input));
        else if (event.name === runEndedSignal.name) endRun(objectOf<RunEnded>(event.input), event.at);
        else if (event.name === stopSignal.name) {
          const stop = objectOf<StopInput>(event.input);
          session.items.push({
            kind: 'stop',
            at: event.at,
            ...(stop?.reason ? { reason: stop.reason } : {}),
            ...(stop?.by ? { by: stop.by } : {}),
          });
        }
        return;
      case 'updateAccepted': {
        if (event.name !== sendMessageUpdate.name) return;
        const item = addMessage(event.at, objectOf<ThreadMessage>(event.input));
        if (item) byUpdate.set(event.updateId, item);
        return;
      }
      case 'updateCompleted': {
        const item = byUpdate.get(event.updateId);
        const outcome = objectOf<MessageOutcome>(event.result);
        if (item && outcome) item.outcome = outcome;
        return;
      }
      case 'childInitiated': {
        const child = trace.children.get(event.id)!;
        if (!session.runIds.includes(child.workflowId)) session.runIds.push(child.workflowId);
        session.items.push({ kind: 'run', at: event.at, child });
        return;
      }
      case 'localActivity': {
        const start = event.activityType === 'startRun' ? objectOf<StartRunResult>(event.result) : undefined;
        if (!start?.runId) return;
        const child: ChildView = { workflowId: start.runId, workflowType: agentRunWorkflowType.name, at: event.at, state: 'running' };
        started.set(start.runId, child);
        if (!session.runIds.includes(start.runId)) session.runIds.push(start.runId);
        session.items.push({ kind: 'run', at: event.at, child });
        if ('ended' in start) endRun(start.ended, event.at);
        return;
      }
      case 'activityScheduled': {
        const activity = trace.activities.get(event.id)!;
        if (activity.type === 'runOutcome') {
          const outcome = objectOf<RunOutcome>(activity.result);
          if (outcome && !outcome.open) endRun(outcome, activity.endedAt ?? event.at);
        } else if (activity.type === 'startUnit') {
          const input = objectOf<ShipUnitInput>(activity.input);
          const result = objectOf<StartUnitResult>(activity.result);
          if (!input?.unitId) return;
          if (!session.unitIds.includes(input.unitId)) session.unitIds.push(input.unitId);
          session.items.push({
            kind: 'unit',
            at: event.at,
            unitId: input.unitId,
            ...(result ? { status: result.status } : {}),
            ...(result?.reason ? { reason: result.reason } : {}),
          });
        } else if (activity.type === 'deliverReply') {
          const input = objectOf<ReplyInput>(activity.input);
          if (input) session.items.push({ kind: 'reply', at: event.at, text: input.text, refused: input.acknowledge === 'refused' });
        }
        return;
      }
      case 'closed':
        if (event.status === 'continuedAsNew') return void session.items.push({ kind: 'continued', at: event.at });
        session.open = false;
        session.closedAt = event.at;
        if (event.status !== 'completed') session.closedStatus = event.status;
        if (event.message) session.failure = event.message;
        return;
      default:
        return;
    }
  }

  /** A run started eagerly ends: its record, or that it failed or was terminated. The first word about it counts. */
  function endRun(end: RunEnded | undefined, at: number): void {
    const child = end?.runId ? started.get(end.runId) : undefined;
    if (!child || child.state !== 'running') return;
    child.endedAt = at;
    if (isRunRecord(end!.record)) Object.assign(child, { state: 'completed', record: end!.record });
    else if (end!.terminated) child.state = 'terminated';
    else Object.assign(child, { state: 'failed', ...(end!.failed ? { message: end!.failed } : {}) });
  }

  function addMessage(at: number, message: ThreadMessage | undefined): Extract<ThreadItem, { kind: 'message' }> | undefined {
    if (!message?.messageId) return undefined;
    // A repeated message id (a retried delivery) is one message.
    if (session.items.some((item) => item.kind === 'message' && item.message.messageId === message.messageId)) return undefined;
    const item: Extract<ThreadItem, { kind: 'message' }> = { kind: 'message', at, message };
    session.items.push(item);
    return item;
  }
}
