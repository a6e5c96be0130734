/**
 * A workflow's history as the session pages read it: the events that say what a run, a unit or a
 * thread did, their payloads decoded (through the deployment's codec, claim-check included) and
 * their times in milliseconds. history/decode.ts makes them from Temporal's events; the models
 * beside this file turn them into what a page shows, without I/O, so unit tests feed them
 * recorded histories.
 */

/** A payload that could not be read (a pruned claim-check blob, a codec error): the page says so. */
export interface Unreadable {
  unreadable: string;
}

/** A decoded payload: whatever the workflow wrote, or an `Unreadable`. */
export type Decoded = unknown;

export function isUnreadable(value: unknown): value is Unreadable {
  return typeof value === 'object' && value !== null && typeof (value as Unreadable).unreadable === 'string';
}

interface Base {
  /** The event id within its execution. */
  id: number;
  /** When it happened (ms since the epoch). */
  at: number;
}

export type SessionEvent = Base &
  (
    | { kind: 'started'; workflowType: string; runId: string; input: Decoded; continuedFrom?: string }
    | {
        kind: 'activityScheduled';
        activityType: string;
        /** Absent for the types whose input is never read (a model turn's whole conversation, a status card). */
        input?: Decoded;
        /** The encoded size of the input (a claim-check reference counts its blob). */
        inputBytes: number;
        /** Its start-to-close timeout (a run's closing summary has a policy of its own). */
        startToCloseMs?: number;
      }
    | { kind: 'activityStarted'; scheduledId: number; attempt: number }
    | { kind: 'activityCompleted'; scheduledId: number; result: Decoded }
    | { kind: 'activityFailed'; scheduledId: number; message: string }
    | { kind: 'activityTimedOut'; scheduledId: number; message: string }
    | { kind: 'activityCanceled'; scheduledId: number }
    | { kind: 'signal'; name: string; input: Decoded; identity?: string }
    | { kind: 'updateAccepted'; name: string; updateId: string; input: Decoded }
    | { kind: 'updateCompleted'; updateId: string; result?: Decoded; failure?: string }
    | { kind: 'cancelRequested'; identity?: string }
    /** A local activity (its marker): the type, and its answer unless it failed. */
    | { kind: 'localActivity'; activityType: string; result?: Decoded; failed?: boolean }
    | { kind: 'childInitiated'; workflowId: string; workflowType: string }
    | { kind: 'childStarted'; initiatedId: number; runId: string }
    | {
        kind: 'childClosed';
        initiatedId: number;
        status: 'completed' | 'failed' | 'canceled' | 'terminated' | 'timedOut';
        result?: Decoded;
        message?: string;
      }
    | { kind: 'timerStarted'; timerId: string; fireAt: number }
    | { kind: 'timerFired'; startedId: number }
    | { kind: 'timerCanceled'; startedId: number }
    | { kind: 'searchAttributes'; values: Record<string, unknown> }
    | {
        kind: 'closed';
        status: 'completed' | 'failed' | 'canceled' | 'terminated' | 'timedOut' | 'continuedAsNew';
        result?: Decoded;
        message?: string;
        newRunId?: string;
      }
  );

export type EventOf<K extends SessionEvent['kind']> = Extract<SessionEvent, { kind: K }>;

/** One execution of a workflow id (continue-as-new makes several), oldest event first. */
export interface Execution {
  runId: string;
  events: SessionEvent[];
}
