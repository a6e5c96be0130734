import type { RunRecord } from '../../../workflows/contracts';
import { isUnreadable, type Decoded, type EventOf, type SessionEvent } from '../../../infra/history/events';

/** One activity as a page shows it: what it was asked, how it went, what it answered. */
export interface ActivityView {
  type: string;
  /** The execution (run id) it belongs to: event ids repeat across a continue-as-new chain. */
  execution: string;
  scheduledId: number;
  at: number;
  input?: Decoded;
  state: 'scheduled' | 'running' | 'completed' | 'failed' | 'timedOut' | 'canceled';
  attempt?: number;
  startedAt?: number;
  endedAt?: number;
  result?: Decoded;
  error?: string;
  startToCloseMs?: number;
}

/** A child workflow (a run) where its parent started it. */
export interface ChildView {
  workflowId: string;
  workflowType: string;
  at: number;
  state: 'starting' | 'running' | 'completed' | 'failed' | 'canceled' | 'terminated' | 'timedOut';
  endedAt?: number;
  /** A run child's record, once it completed. */
  record?: RunRecord;
  message?: string;
}

export interface PendingTimer {
  fireAt: number;
  startedAt: number;
}

/**
 * What one execution's events say about its activities, children and timers, indexed by the
 * event that began each; updated as later events arrive (a long poll adds a few at a time).
 */
export class Trace {
  readonly activities = new Map<number, ActivityView>();
  readonly children = new Map<number, ChildView>();
  readonly timers = new Map<number, PendingTimer>();

  constructor(
    events: readonly SessionEvent[],
    private readonly execution = '',
  ) {
    for (const event of events) this.add(event);
  }

  add(event: SessionEvent): void {
    switch (event.kind) {
      case 'activityScheduled':
        this.activities.set(event.id, {
          type: event.activityType,
          execution: this.execution,
          scheduledId: event.id,
          at: event.at,
          ...(event.input !== undefined ? { input: event.input } : {}),
          ...(event.startToCloseMs !== undefined ? { startToCloseMs: event.startToCloseMs } : {}),
          state: 'scheduled',
        });
        return;
      case 'activityStarted':
        return this.activity(event.scheduledId, (a) => Object.assign(a, { state: 'running', attempt: event.attempt, startedAt: event.at }));
      case 'activityCompleted':
        return this.activity(event.scheduledId, (a) => Object.assign(a, { state: 'completed', endedAt: event.at, result: event.result }));
      case 'activityFailed':
      case 'activityTimedOut':
        return this.activity(event.scheduledId, (a) =>
          Object.assign(a, { state: event.kind === 'activityFailed' ? 'failed' : 'timedOut', endedAt: event.at, error: event.message }),
        );
      case 'activityCanceled':
        return this.activity(event.scheduledId, (a) => Object.assign(a, { state: 'canceled', endedAt: event.at }));
      case 'childInitiated':
        this.children.set(event.id, { workflowId: event.workflowId, workflowType: event.workflowType, at: event.at, state: 'starting' });
        return;
      case 'childStarted':
        return this.child(event.initiatedId, (c) => Object.assign(c, { state: 'running' }));
      case 'childClosed':
        return this.child(event.initiatedId, (c) => closeChild(c, event));
      case 'timerStarted':
        this.timers.set(event.id, { fireAt: event.fireAt, startedAt: event.at });
        return;
      case 'timerFired':
      case 'timerCanceled':
        this.timers.delete(event.startedId);
        return;
      default:
        return;
    }
  }

  private activity(id: number, update: (activity: ActivityView) => void): void {
    const activity = this.activities.get(id);
    if (activity) update(activity);
  }

  private child(id: number, update: (child: ChildView) => void): void {
    const child = this.children.get(id);
    if (child) update(child);
  }
}

function closeChild(child: ChildView, event: EventOf<'childClosed'>): void {
  child.state = event.status;
  child.endedAt = event.at;
  if (event.message) child.message = event.message;
  if (event.status === 'completed' && isRunRecord(event.result)) child.record = event.result;
}

export function isRunRecord(value: Decoded): value is RunRecord {
  return typeof value === 'object' && value !== null && !isUnreadable(value) && typeof (value as RunRecord).outcome === 'string';
}

/** A decoded value as an object, or undefined (unreadable, absent or not an object). */
export function objectOf<T extends object>(value: Decoded): T | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isUnreadable(value) ? (value as T) : undefined;
}

/** The earliest timer still pending, if any. */
export function nextTimer(trace: Trace): PendingTimer | undefined {
  let next: PendingTimer | undefined;
  for (const timer of trace.timers.values()) if (!next || timer.fireAt < next.fireAt) next = timer;
  return next;
}
