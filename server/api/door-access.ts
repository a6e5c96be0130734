import { setTimeout as delay } from 'node:timers/promises';
import type { SpendScope, SpendVerdict } from '../../workflows/contracts/spend';
import {
  type Client,
  isGrpcServiceError,
  WorkflowNotFoundError,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
} from '@temporalio/client';
import { refusalKind } from '../../workflows/contracts/refusals';
import {
  admitStart,
  namesRefusal,
  parseDirectives,
  usableAgents,
  type AdmissionFacts,
  type AdmissionRefusal,
  type ControlAction,
  type Person,
  type StartRequest,
} from '../../agents';
import { type Caller } from '../../infra/api-tokens';
import { ApiError } from '../../infra/errors';
import { stopSignal, type Requester as RunRequester } from '../../workflows/contracts';
import { Requester } from '../../workflows/search-attributes';
import { createControlAdmission } from '../control-admission';

/** The caller as the admission sees it: its surface, its user id, its token's grant, self-serve flag and admin grant. */
export function accessRequester(caller: Caller): Person {
  return {
    surface: caller.surface,
    userId: caller.userId,
    ...(caller.selfServe ? { selfServe: true } : {}),
    ...(caller.agents ? { grant: { agents: caller.agents, rule: `api.tokens.${caller.tokenId}.agents` } } : {}),
    ...(caller.admin ? { operator: true } : {}),
  };
}

/** The caller as a thread message and its runs carry it (the grant and self-serve flag follow into child runs). */
export function runRequester(caller: Caller): RunRequester {
  const { grant, selfServe } = accessRequester(caller);
  return { id: caller.userId, surface: caller.surface, ...(selfServe ? { selfServe } : {}), ...(grant ? { grant } : {}) };
}

export interface AccessOptions {
  client: Client;
  /** The admission's facts (infra/door-admission.ts): the same agent setup the workflows decide by. */
  facts(): Promise<AdmissionFacts>;
  /**
   * The spend caps of a start this door makes itself (a unit; a job's thread checks its own): the
   * same sum from Temporal a thread asks for (activities/spend). Absent: no caps are configured.
   */
  spend?: (scope: SpendScope, now: number) => Promise<SpendVerdict>;
}

/** The access rules' answer for one caller on one workflow: yes, or the refusal's code and words. */
export type TouchDecision = { ok: true } | { ok: false; refusal: string; message: string; rule?: string };

/**
 * A refusal as the API answers it: an `access` refusal is 403 `access_refused`, the sandbox's
 * 503 `sandbox_unavailable`, GitHub's silence 503 `github_unavailable`, any other 422
 * `request_refused`; the admission's code is the `refusal` member, its sentence the detail.
 */
export function refusalError(code: string, message: string, extensions: Record<string, unknown> = {}): ApiError {
  const members = { refusal: code, ...extensions };
  const kind = refusalKind(code);
  if (kind === 'access') return new ApiError('access_refused', message, members);
  if (code === 'sandbox_unavailable') return new ApiError('sandbox_unavailable', message, members);
  if (kind === 'unavailable') return new ApiError('github_unavailable', message, members);
  return new ApiError('request_refused', message, members);
}

function refusal(refused: AdmissionRefusal): ApiError {
  return refusalError(refused.code, refused.message, {
    rule: refused.rule,
    ...(refused.alternatives ? { alternatives: refused.alternatives } : {}),
  });
}

/** Refuses (403, 422 or 503, with the admission's code and sentence) unless the caller may start this from this door. */
export async function assertAdmitted(options: AccessOptions, caller: Caller, request: Omit<StartRequest, 'person'>): Promise<void> {
  const facts = await options.facts();
  const allowed = namesRefusal(facts, request) ?? admitStart(facts, { person: accessRequester(caller), ...request });
  if (!allowed.ok) throw refusal(allowed);
}

/** Refuses (422) a message naming an agent or a model nobody has, before its thread exists (agents/admission.ts `namesRefusal`). */
export async function assertNamesKnown(options: AccessOptions, text: string): Promise<void> {
  const refused = namesRefusal(await options.facts(), parseDirectives(text).directives);
  if (refused) throw refusal(refused);
}

/** Refuses (403 `spend_cap`, with the amount and when it resets) a start past a daily spend cap. */
export async function assertWithinSpend(options: AccessOptions, scope: SpendScope): Promise<void> {
  const verdict = await options.spend?.(scope, Date.now());
  if (verdict?.kind === 'refuse')
    throw refusalError(verdict.code, verdict.reply, {
      spentUsd: verdict.spentUsd,
      capUsd: verdict.capUsd,
      resetsAt: new Date(verdict.resetsAt).toISOString(),
    });
}

/** The agents the caller may use from this door. */
export async function agentsFor(options: AccessOptions, caller: Caller) {
  const facts = await options.facts();
  return { catalog: facts.catalog, ids: usableAgents(facts.catalog, facts.config, accessRequester(caller)) };
}

/**
 * Who may read, steer or stop a job or unit (agents/admission.ts `admitControl`): the person
 * who asked for it, or an admin token; a steer also needs the caller admitted for its agent.
 * Alice's token reaches Alice's work only.
 */
export async function assertMayTouch(
  options: AccessOptions,
  caller: Caller,
  workflowId: string,
  description: WorkflowExecutionDescription,
  action: ControlAction,
): Promise<void> {
  const decision = await createControlAdmission(options).decideFor(accessRequester(caller), workflowId, description, action);
  if (!decision.ok) throw refusal(decision);
}

/**
 * A run's or unit's description once its first workflow task has run: it has recorded who
 * asked (the search attribute access is checked against) and registered its query and update
 * handlers. One only just started is waited for, at most `waitMs`.
 */
export async function describeSettled(
  client: Client,
  workflowId: string,
  waitMs: number,
  mayNotExistYet = false,
): Promise<WorkflowExecutionDescription> {
  const handle = client.workflow.getHandle(workflowId);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const description = await handle.describe().catch((error: unknown) => {
      if (mayNotExistYet && Date.now() < deadline && error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    });
    if (description) {
      const ready = description.typedSearchAttributes.get(Requester) !== undefined || description.status.name !== 'RUNNING';
      if (ready || Date.now() >= deadline) return description;
    }
    await delay(100);
  }
}

/**
 * Stops a unit or a plan the caller was admitted to stop (`describe…(caller, id, 'stop')`): 409
 * `job_finished` once it has ended (`ended` says how: "settled", "ended"), else its `stop` signal.
 */
export async function stopRunning(
  target: { handle: WorkflowHandle; description: WorkflowExecutionDescription },
  stop: { id: string; what: 'unit' | 'plan'; ended: string; by: string; reason?: string },
): Promise<{ stopping: true; id: string }> {
  const status = target.description.status.name;
  if (status !== 'RUNNING') throw new ApiError('job_finished', `The ${stop.what} has already ${stop.ended} (${status.toLowerCase()}).`);
  await target.handle
    .signal(stopSignal, { by: stop.by, ...(stop.reason ? { reason: stop.reason } : {}) })
    .catch((error: unknown) => temporalError(error, `${stop.what} ${stop.id}`));
  return { stopping: true, id: stop.id };
}

/** gRPC UNAVAILABLE and DEADLINE_EXCEEDED: the server is away. */
const GRPC_AWAY = [14, 4];

/** Temporal's answers in the API's words: not found is 404, an unreachable server 503, the rest passes on. */
export function temporalError(error: unknown, what: string): never {
  if (error instanceof ApiError) throw error;
  if (error instanceof WorkflowNotFoundError) throw new ApiError('not_found', `There is no ${what}.`);
  if ((error as { name?: string })?.name === 'QueryNotRegisteredError') {
    throw new ApiError('temporal_unavailable', `The ${what} is still starting; try again in a moment.`, {}, { 'Retry-After': '1' });
  }
  const cause = (error as { cause?: unknown })?.cause;
  const grpc = isGrpcServiceError(error) ? error : isGrpcServiceError(cause) ? cause : undefined;
  // The server is away, not the caller's fault.
  if (grpc && GRPC_AWAY.includes(Number(grpc.code)))
    throw new ApiError('temporal_unavailable', 'Temporal is not reachable right now; try again shortly.');
  throw error;
}
