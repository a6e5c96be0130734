import { defaultPayloadConverter, type LoadedDataConverter, type Payload } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { type temporal } from '@temporalio/proto';
import { isReference, parseReference } from '../payloads/claim-check-codec';
import type { Decoded, SessionEvent } from './events';

type RawEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * Activity types whose input a page never shows: a model turn's input is the whole conversation
 * so far (claim-checked, and quadratic over a run), a status card's is the status the page reads
 * from the turns themselves. Their payloads are not even fetched.
 */
const UNREAD_INPUTS = new Set(['modelTurn', 'statusCard']);

/**
 * Turns Temporal's history events into session events, decoding the payloads a page shows
 * through the deployment's data converter (the claim-check codec fetches large ones from the
 * payload store). A payload that cannot be read becomes `{ unreadable }`, never a failed page.
 */
export async function decodeEvents(converter: LoadedDataConverter, raw: readonly RawEvent[]): Promise<SessionEvent[]> {
  const decoded = await Promise.all(raw.map((event) => decodeEvent(converter, event)));
  return decoded.filter((event): event is SessionEvent => event !== undefined);
}

async function decodeEvent(converter: LoadedDataConverter, event: RawEvent): Promise<SessionEvent | undefined> {
  const id = Number(event.eventId ?? 0);
  const at = durationMs(event.eventTime) ?? 0;
  const base = { id, at };
  const payload = (payloads: Payload[] | null | undefined): Promise<Decoded> => first(converter, payloads);

  const started = event.workflowExecutionStartedEventAttributes;
  if (started)
    return {
      ...base,
      kind: 'started',
      workflowType: started.workflowType?.name ?? '',
      runId: started.originalExecutionRunId ?? '',
      input: await payload(started.input?.payloads),
      ...(started.continuedExecutionRunId ? { continuedFrom: started.continuedExecutionRunId } : {}),
    };
  const scheduled = event.activityTaskScheduledEventAttributes;
  if (scheduled) {
    const activityType = scheduled.activityType?.name ?? '';
    const payloads = scheduled.input?.payloads ?? [];
    const startToCloseMs = durationMs(scheduled.startToCloseTimeout);
    return {
      ...base,
      kind: 'activityScheduled',
      activityType,
      inputBytes: payloads.reduce((sum, p) => sum + encodedBytes(p), 0),
      ...(startToCloseMs !== undefined ? { startToCloseMs } : {}),
      ...(UNREAD_INPUTS.has(activityType) ? {} : { input: await payload(payloads) }),
    };
  }
  const activityStarted = event.activityTaskStartedEventAttributes;
  if (activityStarted)
    return {
      ...base,
      kind: 'activityStarted',
      scheduledId: Number(activityStarted.scheduledEventId),
      attempt: activityStarted.attempt ?? 1,
    };
  const completed = event.activityTaskCompletedEventAttributes;
  if (completed)
    return {
      ...base,
      kind: 'activityCompleted',
      scheduledId: Number(completed.scheduledEventId),
      result: await payload(completed.result?.payloads),
    };
  const failed = event.activityTaskFailedEventAttributes;
  if (failed)
    return { ...base, kind: 'activityFailed', scheduledId: Number(failed.scheduledEventId), message: failureText(failed.failure) };
  const timedOut = event.activityTaskTimedOutEventAttributes;
  if (timedOut)
    return { ...base, kind: 'activityTimedOut', scheduledId: Number(timedOut.scheduledEventId), message: failureText(timedOut.failure) };
  const canceled = event.activityTaskCanceledEventAttributes;
  if (canceled) return { ...base, kind: 'activityCanceled', scheduledId: Number(canceled.scheduledEventId) };
  const signaled = event.workflowExecutionSignaledEventAttributes;
  if (signaled)
    return {
      ...base,
      kind: 'signal',
      name: signaled.signalName ?? '',
      input: await payload(signaled.input?.payloads),
      ...(signaled.identity ? { identity: signaled.identity } : {}),
    };
  const accepted = event.workflowExecutionUpdateAcceptedEventAttributes;
  if (accepted) {
    const request = accepted.acceptedRequest;
    return {
      ...base,
      kind: 'updateAccepted',
      name: request?.input?.name ?? '',
      updateId: request?.meta?.updateId ?? accepted.protocolInstanceId ?? '',
      input: await payload(request?.input?.args?.payloads),
    };
  }
  const updated = event.workflowExecutionUpdateCompletedEventAttributes;
  if (updated) {
    const outcome = updated.outcome;
    return {
      ...base,
      kind: 'updateCompleted',
      updateId: updated.meta?.updateId ?? '',
      ...(outcome?.success ? { result: await payload(outcome.success.payloads) } : {}),
      ...(outcome?.failure ? { failure: failureText(outcome.failure) } : {}),
    };
  }
  const cancelRequested = event.workflowExecutionCancelRequestedEventAttributes;
  if (cancelRequested)
    return { ...base, kind: 'cancelRequested', ...(cancelRequested.identity ? { identity: cancelRequested.identity } : {}) };
  const initiated = event.startChildWorkflowExecutionInitiatedEventAttributes;
  if (initiated)
    return { ...base, kind: 'childInitiated', workflowId: initiated.workflowId ?? '', workflowType: initiated.workflowType?.name ?? '' };
  const childStarted = event.childWorkflowExecutionStartedEventAttributes;
  if (childStarted)
    return {
      ...base,
      kind: 'childStarted',
      initiatedId: Number(childStarted.initiatedEventId),
      runId: childStarted.workflowExecution?.runId ?? '',
    };
  const local = localActivityMarker(event);
  if (local)
    return {
      ...base,
      kind: 'localActivity',
      activityType: local.activityType,
      ...(local.failed ? { failed: true } : { result: await payload(local.result) }),
    };
  const child = await decodeChildClosed(converter, event);
  if (child) return { ...base, ...child };
  const timer = event.timerStartedEventAttributes;
  if (timer)
    return {
      ...base,
      kind: 'timerStarted',
      timerId: timer.timerId ?? '',
      fireAt: at + (durationMs(timer.startToFireTimeout) ?? 0),
    };
  if (event.timerFiredEventAttributes)
    return { ...base, kind: 'timerFired', startedId: Number(event.timerFiredEventAttributes.startedEventId) };
  if (event.timerCanceledEventAttributes)
    return { ...base, kind: 'timerCanceled', startedId: Number(event.timerCanceledEventAttributes.startedEventId) };
  const upsert = event.upsertWorkflowSearchAttributesEventAttributes;
  if (upsert) return { ...base, kind: 'searchAttributes', values: searchAttributes(upsert.searchAttributes?.indexedFields) };
  const closed = await decodeClosed(converter, event);
  return closed ? { ...base, ...closed } : undefined;
}

/**
 * A local activity as its history records it: a `core_local_activity` marker whose `data` names
 * the activity type (plain JSON the SDK writes, never through the codec) and whose `result` is its
 * answer; a failed one has a failure instead. The thread's agent setup and its run starts are local.
 */
export function localActivityMarker(event: RawEvent): { activityType: string; result?: Payload[]; failed?: boolean } | undefined {
  const marker = event.markerRecordedEventAttributes;
  if (marker?.markerName !== 'core_local_activity') return undefined;
  const data = marker.details?.data?.payloads?.[0]?.data;
  if (!data) return undefined;
  let activityType: unknown;
  try {
    activityType = (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: unknown }).activity_type;
  } catch {
    return undefined;
  }
  if (typeof activityType !== 'string') return undefined;
  if (marker.failure) return { activityType, failed: true };
  return { activityType, result: marker.details?.result?.payloads ?? [] };
}

type Closed = Extract<SessionEvent, { kind: 'closed' }>;
type ChildClosed = Extract<SessionEvent, { kind: 'childClosed' }>;

async function decodeClosed(converter: LoadedDataConverter, event: RawEvent): Promise<Omit<Closed, 'id' | 'at'> | undefined> {
  const done = event.workflowExecutionCompletedEventAttributes;
  if (done) return { kind: 'closed', status: 'completed', result: await first(converter, done.result?.payloads) };
  const failed = event.workflowExecutionFailedEventAttributes;
  if (failed) return { kind: 'closed', status: 'failed', message: failureText(failed.failure) };
  const canceled = event.workflowExecutionCanceledEventAttributes;
  if (canceled) return { kind: 'closed', status: 'canceled' };
  const terminated = event.workflowExecutionTerminatedEventAttributes;
  if (terminated) return { kind: 'closed', status: 'terminated', ...(terminated.reason ? { message: terminated.reason } : {}) };
  if (event.workflowExecutionTimedOutEventAttributes) return { kind: 'closed', status: 'timedOut' };
  const next = event.workflowExecutionContinuedAsNewEventAttributes;
  if (next) return { kind: 'closed', status: 'continuedAsNew', ...(next.newExecutionRunId ? { newRunId: next.newExecutionRunId } : {}) };
  return undefined;
}

async function decodeChildClosed(converter: LoadedDataConverter, event: RawEvent): Promise<Omit<ChildClosed, 'id' | 'at'> | undefined> {
  const done = event.childWorkflowExecutionCompletedEventAttributes;
  if (done)
    return {
      kind: 'childClosed',
      initiatedId: Number(done.initiatedEventId),
      status: 'completed',
      result: await first(converter, done.result?.payloads),
    };
  const failed = event.childWorkflowExecutionFailedEventAttributes;
  if (failed)
    return { kind: 'childClosed', initiatedId: Number(failed.initiatedEventId), status: 'failed', message: failureText(failed.failure) };
  const canceled = event.childWorkflowExecutionCanceledEventAttributes;
  if (canceled) return { kind: 'childClosed', initiatedId: Number(canceled.initiatedEventId), status: 'canceled' };
  const terminated = event.childWorkflowExecutionTerminatedEventAttributes;
  if (terminated) return { kind: 'childClosed', initiatedId: Number(terminated.initiatedEventId), status: 'terminated' };
  const timedOut = event.childWorkflowExecutionTimedOutEventAttributes;
  if (timedOut) return { kind: 'childClosed', initiatedId: Number(timedOut.initiatedEventId), status: 'timedOut' };
  return undefined;
}

async function first(converter: LoadedDataConverter, payloads: Payload[] | null | undefined): Promise<Decoded> {
  if (!payloads?.length) return undefined;
  try {
    return await decodeFromPayloadsAtIndex(converter, 0, payloads);
  } catch (error) {
    return { unreadable: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * A protobuf Timestamp or Duration in milliseconds. Its seconds are a Long off the wire but a
 * number or string in a history read from JSON (the recorded histories the tests replay).
 */
function durationMs(value: { seconds?: unknown; nanos?: number | null } | null | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = value.seconds;
  const whole =
    typeof seconds === 'object' && seconds !== null && 'toNumber' in seconds
      ? (seconds as { toNumber(): number }).toNumber()
      : Number(seconds ?? 0);
  return whole * 1000 + Math.floor((value.nanos ?? 0) / 1_000_000);
}

/** A payload's size as history holds it; a claim-check reference counts the blob it stands for. */
function encodedBytes(payload: Payload): number {
  if (isReference(payload)) {
    try {
      return parseReference(payload).bytes;
    } catch {
      return payload.data?.length ?? 0;
    }
  }
  return payload.data?.length ?? 0;
}

/** A failure's message with its causes ("Activity task failed: …: the real reason"). */
function failureText(failure: temporal.api.failure.v1.IFailure | null | undefined): string {
  const parts: string[] = [];
  for (let f = failure; f && parts.length < 4; f = f.cause) if (f.message) parts.push(f.message);
  return parts.join(': ') || 'failed';
}

/** Search attribute payloads are plain JSON (never codec-encoded). */
function searchAttributes(fields: Record<string, Payload> | null | undefined): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields ?? {})) {
    try {
      const decoded = defaultPayloadConverter.fromPayload<unknown>(value);
      values[key] = Array.isArray(decoded) && decoded.length === 1 ? decoded[0] : decoded;
    } catch {
      values[key] = undefined;
    }
  }
  return values;
}
