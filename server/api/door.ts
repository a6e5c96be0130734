import type { ShipUnitInput } from '../../workflows/contracts';
import { createHash, randomUUID } from 'node:crypto';
import {
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
  WorkflowFailedError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { type ControlAction } from '../../agents';
import { reachesShell } from '../../agents';
import { type Caller } from '../../infra/api-tokens';
import { ApiError } from '../../infra/errors';
import { formatRecord } from '../../infra/run-format';
import { composeMessage, sendToThread, watchRun } from '../../infra/thread-client';
import { visibilityQuery } from '../../infra/visibility';
import {
  agentRunWorkflowType,
  runStatusQuery,
  shipUnitWorkflowType,
  threadWorkflowType,
  steerUpdate,
  stopSignal,
  threadStateQuery,
  type MessageOutcome,
  type RunRecord,
  type RunStatus,
  type ThreadMessage,
} from '../../workflows/contracts';
import { Agent, Outcome, Thread } from '../../workflows/search-attributes';
import {
  agentsFor,
  assertMayTouch,
  assertNamesKnown,
  describeSettled,
  refusalError,
  runRequester,
  temporalError,
  type AccessOptions,
} from './door-access';
import { createUnitDoor, type UnitDoorOptions } from './door-units';
import { createPlanDoor } from './door-plans';
import type { Job, JobAccepted, JobRequest, Links, MessageRequest } from './schemas';

export interface DoorOptions extends AccessOptions {
  client: Client;
  taskQueue: string;
  namespace: string;
  /** How long a new message waits for its thread's decision before the answer is `queued`. */
  decisionWaitMs: number;
  /** Base URL of the Temporal Web UI, for links (none: no link). */
  webUiBaseUrl?: string;
  /** Where the REST routes live, for links (default `/api/v1`). */
  apiBase?: string;
  /** What a new ship unit would lack (GitHub identities, model key): a start is refused with it. */
  preflight?: (input: ShipUnitInput) => string[];
  /** A workflow's session page, signed (infra/session-links.ts); none when links are off. */
  sessionLink?: (workflowId: string) => string | undefined;
  /** The spend caps and the ledger a new unit reserves its first round in (none: nothing is capped). */
  unitSpend?: UnitDoorOptions['unitSpend'];
}

export type Door = ReturnType<typeof createDoor>;

/** How a caller shaped a POST: its Idempotency-Key, and how long it will wait for the decision (`Prefer: wait=<s>`). */
export interface PostOptions {
  idempotencyKey?: string;
  waitMs?: number;
}

/**
 * What the HTTP API and the MCP tools do, for a verified caller: start a job (a message on
 * an API thread, signal-with-start), read it, follow it, steer and stop it, follow-ups,
 * the agents it may use, and ship units. Thin like every front end: the thread's admission
 * decides a message's agent and access; this door asks the same admission (agents/admission.ts)
 * before it reads, steers or stops a job, and before it starts a unit. Failures are `ApiError`s.
 */
export function createDoor(options: DoorOptions) {
  const { client } = options;
  const api = options.apiBase ?? '/api/v1';
  const webUi = (id: string) =>
    options.webUiBaseUrl
      ? `${options.webUiBaseUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(options.namespace)}/workflows/${encodeURIComponent(id)}`
      : undefined;
  const jobLinks = (jobId: string, threadId?: string): Links => {
    const link = webUi(jobId);
    const session = options.sessionLink?.(jobId);
    return {
      self: `${api}/jobs/${encodeURIComponent(jobId)}`,
      events: `${api}/jobs/${encodeURIComponent(jobId)}/events`,
      ...(threadId ? { thread: `${api}/threads/${encodeURIComponent(threadId)}` } : {}),
      ...(link ? { webUi: link } : {}),
      ...(session ? { session } : {}),
    };
  };

  /** Sends one message to a new or existing API thread and answers with the thread's decision. */
  async function submit(caller: Caller, body: MessageRequest, target: { threadId?: string } & PostOptions): Promise<JobAccepted> {
    const keyHash = target.idempotencyKey ? sha256(`${caller.tokenId}\n${target.idempotencyKey}`) : undefined;
    const fingerprint = sha256(JSON.stringify(body));
    const threadId = target.threadId ?? `thread:api:${keyHash ? uuidFrom(keyHash) : randomUUID()}`;
    const message: ThreadMessage = {
      messageId: keyHash ? `api:${keyHash.slice(0, 32)}` : `api:${randomUUID()}`,
      text: composeMessage(body.text, body),
      requester: runRequester(caller),
      ...(caller.selfServe ? { selfServe: true } : {}),
    };
    // An agent or a model nobody has is refused here, before a thread exists.
    await assertNamesKnown(options, message.text);
    try {
      const waitMs = Math.min(target.waitMs ?? options.decisionWaitMs, options.decisionWaitMs);
      if (target.threadId) await assertThreadOwner(caller, target.threadId);
      else if (keyHash) await assertSameRequest(caller, threadId, fingerprint);
      const outcome = await sendToThread(
        client,
        options.taskQueue,
        {
          threadId,
          input: { threadId, replyTarget: { kind: 'api' } },
          message,
          summary: `API thread of ${caller.userId} (token ${caller.tokenId})`,
          memo: { owner: caller.userId, token: caller.tokenId, fingerprint },
        },
        { timeoutMs: waitMs, existing: Boolean(target.threadId) },
      );
      return await accepted(threadId, message.messageId, outcome);
    } catch (error) {
      return temporalError(error, `thread ${threadId}`);
    }
  }

  /** A thread is its owner's; an admin token may read anyone's (`reading`), never write into it. */
  async function assertThreadOwner(caller: Caller, threadId: string, reading = false): Promise<void> {
    const description = await client.workflow.getHandle(threadId).describe();
    if (description.status.name !== 'RUNNING') throw new ApiError('not_found', `Thread ${threadId} has ended.`);
    if (description.memo?.owner !== caller.userId && !(reading && caller.admin)) {
      throw new ApiError('access_refused', 'This thread belongs to someone else; start your own.', { refusal: 'not_requester' });
    }
  }

  /** A retried POST with the same key must carry the same request; another request under it is a conflict. */
  async function assertSameRequest(caller: Caller, threadId: string, fingerprint: string): Promise<void> {
    const description = await client.workflow
      .getHandle(threadId)
      .describe()
      .catch(() => undefined);
    if (description && (description.memo?.fingerprint !== fingerprint || description.memo?.owner !== caller.userId)) {
      throw new ApiError('idempotency_conflict', 'This Idempotency-Key was used with a different request; use a new key.');
    }
  }

  async function accepted(threadId: string, messageId: string, outcome: MessageOutcome | undefined): Promise<JobAccepted> {
    const thread = { thread: `${api}/threads/${encodeURIComponent(threadId)}` };
    if (!outcome) return { kind: 'queued', threadId, messageId, links: thread };
    // The thread's admission refused: the same code and sentence, as the API's status (door-access.ts `refusalError`).
    if (outcome.kind === 'refused') throw refusalError(outcome.code ?? 'refused', outcome.reply ?? 'Refused.', { threadId, messageId });
    if (outcome.kind === 'answered')
      return { kind: 'answered', threadId, messageId, ...(outcome.reply ? { reply: outcome.reply } : {}), links: thread };
    if (outcome.kind === 'plan' && outcome.planId) {
      return {
        kind: 'plan',
        threadId,
        messageId,
        planId: outcome.planId,
        ...(outcome.reply ? { reply: outcome.reply } : {}),
        links: { ...thread, plan: `${api}/plans/${encodeURIComponent(outcome.planId)}` },
      };
    }
    if (outcome.kind === 'unit' && outcome.unitId) {
      return {
        kind: 'unit',
        threadId,
        messageId,
        unitId: outcome.unitId,
        ...(outcome.reply ? { reply: outcome.reply } : {}),
        links: { ...thread, unit: `${api}/units/${encodeURIComponent(outcome.unitId)}` },
      };
    }
    if (!outcome.runId) return { kind: 'queued', threadId, messageId, links: thread };
    await untilStarted(outcome.runId);
    return {
      kind: 'run',
      threadId,
      messageId,
      jobId: outcome.runId,
      ...(outcome.agent ? { agent: outcome.agent } : {}),
      links: jobLinks(outcome.runId, threadId),
    };
  }

  /** The thread decides before it starts the run; the job id answered must already be readable. */
  async function untilStarted(runId: string): Promise<void> {
    await describeSettled(client, runId, Math.max(options.decisionWaitMs, 1_000), true).catch(() => undefined);
  }

  /** The job's description once the admission says the caller may `action` it (its requester, or an admin token). */
  async function describeJob(caller: Caller, jobId: string, action: ControlAction) {
    if (!jobId.startsWith('run:thread:api:')) throw new ApiError('not_found', `There is no job ${jobId}.`);
    const handle = client.workflow.getHandle(jobId);
    const description = await describeSettled(client, jobId, 2_000).catch((error: unknown) => temporalError(error, `job ${jobId}`));
    await assertMayTouch(options, caller, jobId, description, action);
    return { handle, description };
  }

  async function jobDocument(jobId: string, description: Awaited<ReturnType<typeof describeJob>>['description']): Promise<Job> {
    const handle = client.workflow.getHandle(jobId);
    const threadId = description.typedSearchAttributes.get(Thread);
    const agent = description.typedSearchAttributes.get(Agent);
    const base = { jobId, ...(threadId ? { threadId } : {}), ...(agent ? { agent } : {}), links: jobLinks(jobId, threadId) };
    const state = description.status.name;
    if (state === 'RUNNING') {
      const status = await handle.query(runStatusQuery).catch(() => undefined);
      return { ...base, state: 'running', ...(status ? { status } : {}) };
    }
    try {
      const record = (await handle.result()) as RunRecord;
      return { ...base, state: 'completed', outcome: record.outcome, record, report: formatRecord(record) };
    } catch (error) {
      const cause = error instanceof WorkflowFailedError ? (error.cause?.message ?? error.message) : String(error);
      return { ...base, state: workflowState(state), error: cause };
    }
  }

  async function steerRun(
    handle: WorkflowHandle,
    description: WorkflowExecutionDescription,
    caller: Caller,
    text: string,
    runId: string,
  ): Promise<{ accepted: true; pending?: number }> {
    if (description.status.name !== 'RUNNING') {
      const outcome = description.typedSearchAttributes.get(Outcome);
      throw new ApiError('steer_rejected', `The run has finished (${outcome ?? workflowState(description.status.name)}).`);
    }
    try {
      return await handle.executeUpdate(steerUpdate, { args: [{ text, by: caller.userId }] });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) throw new ApiError('steer_rejected', error.cause?.message ?? error.message);
      return temporalError(error, `job ${runId}`);
    }
  }

  async function stopWorkflow(
    handle: WorkflowHandle,
    description: WorkflowExecutionDescription,
    caller: Caller,
    id: string,
    reason: string | undefined,
    what: string,
  ): Promise<{ stopping: true; id: string }> {
    if (description.status.name !== 'RUNNING')
      throw new ApiError('job_finished', `The ${what} has already finished (${workflowState(description.status.name)}).`);
    await handle
      .signal(stopSignal, { by: caller.userId, ...(reason ? { reason } : {}) })
      .catch((error: unknown) => temporalError(error, `${what} ${id}`));
    return { stopping: true, id };
  }

  /** Any run, unit or thread, described and checked by the admission: the caller may do `action` to it. */
  async function describeAny(caller: Caller, workflowId: string, action: ControlAction) {
    const handle = client.workflow.getHandle(workflowId);
    const description = await describeSettled(client, workflowId, 2_000).catch((error: unknown) =>
      temporalError(error, `workflow ${workflowId}`),
    );
    const what =
      description.type === shipUnitWorkflowType.name
        ? 'unit'
        : description.type === agentRunWorkflowType.name
          ? 'run'
          : description.type === threadWorkflowType.name
            ? 'thread'
            : undefined;
    if (!what) throw new ApiError('not_found', `${workflowId} is not a run, unit or thread.`);
    await assertMayTouch(options, caller, workflowId, description, action);
    return { handle, description, what };
  }

  const door = {
    submit,

    startJob(caller: Caller, body: JobRequest, post: PostOptions = {}): Promise<JobAccepted> {
      const { threadId, ...message } = body;
      return submit(caller, message, { ...(threadId ? { threadId } : {}), ...post });
    },

    async getJob(caller: Caller, jobId: string): Promise<Job> {
      const { description } = await describeJob(caller, jobId, 'read');
      return jobDocument(jobId, description).catch((error: unknown) => temporalError(error, `job ${jobId}`));
    },

    /** Follows a job: `onStatus` on every change (elapsed time aside), then the final document. Undefined when aborted. */
    async watchJob(
      caller: Caller,
      jobId: string,
      watch: { onStatus(status: RunStatus): void; signal: AbortSignal; seen?: RunStatus },
    ): Promise<Job | undefined> {
      await describeJob(caller, jobId, 'read');
      let last = watch.seen ? JSON.stringify({ ...watch.seen, elapsedMs: 0 }) : '';
      try {
        await watchRun(client, jobId, {
          signal: watch.signal,
          onStatus: (status) => {
            const key = JSON.stringify({ ...status, elapsedMs: 0 });
            if (key !== last) watch.onStatus(status);
            last = key;
          },
        });
      } catch (error) {
        if (!(error instanceof WorkflowFailedError)) temporalError(error, `job ${jobId}`);
      }
      if (watch.signal.aborted) return undefined;
      const description = await client.workflow.getHandle(jobId).describe();
      return jobDocument(jobId, description);
    },

    async listJobs(caller: Caller, limit = 20) {
      const jobs: Array<{ jobId: string; state: string; agent?: string; outcome?: string; startedAt: string }> = [];
      try {
        for await (const execution of client.workflow.list({
          // An admin token sees every person's jobs; any other its own.
          query: visibilityQuery({ SwitchboardKind: 'run', ...(caller.admin ? {} : { Requester: caller.userId }) }),
        })) {
          if (!execution.workflowId.startsWith('run:thread:api:')) continue;
          const [agent, outcome] = [execution.typedSearchAttributes.get(Agent), execution.typedSearchAttributes.get(Outcome)];
          jobs.push({
            jobId: execution.workflowId,
            state: workflowState(execution.status.name),
            ...(agent ? { agent } : {}),
            ...(outcome ? { outcome } : {}),
            startedAt: execution.startTime.toISOString(),
          });
          if (jobs.length >= limit) break;
        }
      } catch (error) {
        temporalError(error, 'job list');
      }
      return { jobs };
    },

    async steerJob(caller: Caller, jobId: string, text: string): Promise<{ accepted: true; pending?: number }> {
      const { handle, description } = await describeJob(caller, jobId, 'steer');
      return steerRun(handle, description, caller, text, jobId);
    },

    async stopJob(caller: Caller, jobId: string, reason?: string): Promise<{ stopping: true; id: string }> {
      const { handle, description } = await describeJob(caller, jobId, 'stop');
      return stopWorkflow(handle, description, caller, jobId, reason, 'run');
    },

    /**
     * Steers any run or unit by id (the session pages' door; the job routes reach API jobs only):
     * the same admission, the same `steer` update, the same refusals. A thread takes no steer.
     */
    async steerWorkflow(caller: Caller, workflowId: string, text: string): Promise<{ accepted: true; pending?: number }> {
      const { handle, description, what } = await describeAny(caller, workflowId, 'steer');
      if (what === 'unit') return door.steerUnit(caller, workflowId, text);
      if (what !== 'run') throw new ApiError('steer_rejected', 'A thread takes no steer: reply in its conversation, or steer its run.');
      return steerRun(handle, description, caller, text, workflowId);
    },

    /** Stops any run, unit or thread by id (the session pages' door), as the job and unit routes do. */
    async stopWorkflow(caller: Caller, workflowId: string, reason?: string): Promise<{ stopping: true; id: string }> {
      const { handle, description, what } = await describeAny(caller, workflowId, 'stop');
      if (what === 'unit') return door.stopUnit(caller, workflowId, reason);
      return stopWorkflow(handle, description, caller, workflowId, reason, what);
    },

    async getThread(caller: Caller, threadId: string) {
      try {
        await assertThreadOwner(caller, threadId, true);
        const state = await client.workflow.getHandle(threadId).query(threadStateQuery);
        const { saved: _saved, ...rest } = state;
        return { ...rest, links: { self: `${api}/threads/${encodeURIComponent(threadId)}` } };
      } catch (error) {
        return temporalError(error, `thread ${threadId}`);
      }
    },

    async listAgents(caller: Caller) {
      const { catalog, ids } = await agentsFor(options, caller);
      const agents = catalog.agents
        .filter((agent) => ids.includes(agent.id))
        .map((agent) => ({
          id: agent.id,
          displayName: agent.displayName,
          description: agent.description,
          shell: reachesShell(agent),
          routable: agent.routable,
        }));
      return { agents };
    },

    ...createUnitDoor({ ...options, apiBase: api, webUi }),
    ...createPlanDoor({ ...options, apiBase: api, webUi }),
  };
  return door;
}

function workflowState(name: string): Job['state'] {
  const state = name.toLowerCase();
  return (['running', 'completed', 'failed', 'terminated', 'cancelled', 'timed_out'] as const).find((known) => known === state) ?? 'failed';
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A stable UUID-shaped id from a hash, so a retried POST names the same thread. */
function uuidFrom(hash: string): string {
  return `${hash.slice(0, 8)}-${hash.slice(8, 12)}-5${hash.slice(13, 16)}-a${hash.slice(17, 20)}-${hash.slice(20, 32)}`;
}
