import { setTimeout as delay } from 'node:timers/promises';
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  messageSignal,
  runStatusQuery,
  sendMessageUpdate,
  threadStateQuery,
  threadWorkflowType,
  type MessageOutcome,
  type RunRecord,
  type RunStatus,
  type ThreadInput,
  type ThreadMessage,
} from '../workflows/contracts';

/**
 * Talking to threads and runs from outside a workflow: what the CLI's `ask`, the HTTP API
 * and the MCP tools share. A message goes to its thread by update-with-start (`sendMessage`,
 * which answers with the thread's decision; the thread dedupes message ids), and a run is
 * followed by polling its `status` query until it closes. Slack and GitHub, which do not wait
 * for the decision, signal-with-start instead.
 */

/** Options that become directives in front of the text, so the thread decides as for any surface. */
export interface MessageOptions {
  agent?: string;
  model?: string;
  repo?: string;
  budgetMinutes?: number;
}

/** The message text with the options as directives (`agent:`, `model:`, `budget:`, `in owner/name:`). */
export function composeMessage(text: string, options: MessageOptions): string {
  const directives = [
    options.agent ? `agent:${options.agent}` : '',
    options.model ? `model:${options.model}` : '',
    options.budgetMinutes !== undefined ? `budget:${options.budgetMinutes}` : '',
    options.repo ? `in ${options.repo}:` : '',
  ].filter(Boolean);
  return [...directives, text].join(' ');
}

export interface ThreadDelivery {
  threadId: string;
  input: ThreadInput;
  message: ThreadMessage;
  /** The thread's summary in the Web UI (used when this call starts it). */
  summary: string;
  /** Memo set when this call starts the thread (owner, idempotency fingerprint). */
  memo?: Record<string, unknown>;
}

/** Signal-with-starts the thread with one message; a repeated message id does nothing in the thread. */
export async function deliverToThread(client: Client, taskQueue: string, delivery: ThreadDelivery): Promise<void> {
  await client.workflow.signalWithStart(threadWorkflowType, {
    workflowId: delivery.threadId,
    taskQueue,
    args: [delivery.input],
    signal: messageSignal,
    signalArgs: [delivery.message],
    staticSummary: delivery.summary,
    ...(delivery.memo ? { memo: delivery.memo } : {}),
  });
}

/**
 * Sends one message to its thread (starting it if need be) and answers the thread's decision,
 * in one call and without polling: an update-with-start of `sendMessage`, whose update id is the
 * message id, so a retried call is answered the first call's decision. Undefined when no
 * decision came within `timeoutMs` (a follow-up waits in the queue while an earlier run works)
 * or the thread answered `queued` (it continued-as-new first); `awaitOutcome` reads it later.
 * `existing` sends to a thread that must already run (no start). A server without
 * update-with-start gets the signal and the polling instead.
 */
export async function sendToThread(
  client: Client,
  taskQueue: string,
  delivery: ThreadDelivery,
  options: { timeoutMs?: number; existing?: boolean } = {},
): Promise<MessageOutcome | undefined> {
  const { threadId, message } = delivery;
  const update = { args: [message] as [ThreadMessage], updateId: message.messageId, waitForStage: 'ACCEPTED' as const };
  const polled = () => awaitOutcome(client, threadId, message.messageId, { timeoutMs: options.timeoutMs, intervalMs: 200 });
  let decided: Promise<MessageOutcome>;
  try {
    const handle = options.existing
      ? await client.workflow.getHandle(threadId).startUpdate(sendMessageUpdate, update)
      : await client.workflow.startUpdateWithStart(sendMessageUpdate, {
          ...update,
          startWorkflowOperation: new WithStartWorkflowOperation(threadWorkflowType, {
            workflowId: threadId,
            taskQueue,
            args: [delivery.input],
            workflowIdConflictPolicy: 'USE_EXISTING',
            staticSummary: delivery.summary,
            ...(delivery.memo ? { memo: delivery.memo } : {}),
          }),
        });
    decided = handle.result();
  } catch (error) {
    if (!updateWithStartUnsupported(error)) throw error;
    if (options.existing) await client.workflow.getHandle(threadId).signal(messageSignal, message);
    else await deliverToThread(client, taskQueue, delivery);
    return polled();
  }
  const outcome = await (options.timeoutMs === undefined ? decided : withTimeout(decided, options.timeoutMs));
  return outcome?.kind === 'queued' ? polled() : outcome;
}

/** Servers before update-with-start (or with it disabled) refuse the multi-operation call. */
function updateWithStartUnsupported(error: unknown): boolean {
  const text = error instanceof Error ? `${error.message} ${String((error.cause as Error | undefined)?.message ?? '')}` : String(error);
  return /ExecuteMultiOperation|multi-?operation|unimplemented|not supported/i.test(text);
}

/** The promise's value, or undefined after `ms` (the promise is left to settle on its own). */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
    promise.catch(() => undefined);
  }
}

/**
 * What the thread did with a message, once it has decided; undefined when it has not within
 * `timeoutMs` (a follow-up waits in the queue while an earlier run works).
 */
export async function awaitOutcome(
  client: Client,
  threadId: string,
  messageId: string,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<MessageOutcome | undefined> {
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  const thread = client.workflow.getHandle(threadId);
  for (;;) {
    // A query fails while no worker can answer it (one restarting after a crash): ask again.
    const state = await thread.query(threadStateQuery).catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError) throw error;
      return undefined;
    });
    const outcome = state?.outcomes.find((entry) => entry.messageId === messageId);
    if (outcome) return outcome;
    if (Date.now() >= deadline) return undefined;
    await delay(Math.min(options.intervalMs ?? 150, Math.max(0, deadline - Date.now())));
  }
}

export interface WatchOptions {
  /** Called with every status read while the run is open. */
  onStatus?: (status: RunStatus) => void;
  intervalMs?: number;
  /** Stops watching (a client that went away, a wait bound); the result is then undefined. */
  signal?: AbortSignal;
}

/**
 * Follows a run until it closes and returns its record (throws as `result()` does for a run
 * that failed or was terminated). A watcher that may give up (`signal`: an SSE client that
 * goes away, a wait bound) polls `describe` and the `status` query, so nothing is left waiting
 * on the server when it stops. One that waits to the end (the CLI) waits on the result itself,
 * which is also what lets a time-skipping test server skip ahead.
 */
export async function watchRun(client: Client, runId: string, options: WatchOptions = {}): Promise<RunRecord | undefined> {
  const run = client.workflow.getHandle(runId);
  const interval = options.intervalMs ?? 500;
  if (!options.signal) {
    const result = run.result() as Promise<RunRecord>;
    let done = false;
    void result
      .finally(() => {
        done = true;
      })
      .catch(() => undefined);
    while (!done) {
      const status = await run.query(runStatusQuery).catch(() => undefined);
      if (status && !done) options.onStatus?.(status);
      await Promise.race([delay(interval), result.catch(() => undefined)]);
    }
    // A run that ended between two polls still shows where it got to (a closed run answers queries).
    const final = await run.query(runStatusQuery).catch(() => undefined);
    if (final) options.onStatus?.(final);
    return result;
  }
  while (!options.signal.aborted) {
    const description = await run.describe();
    if (description.status.name !== 'RUNNING') return (await run.result()) as RunRecord;
    const status = await run.query(runStatusQuery).catch(() => undefined);
    if (status && !options.signal.aborted) options.onStatus?.(status);
    await delay(interval, undefined, { signal: options.signal }).catch(() => undefined);
  }
  return undefined;
}
