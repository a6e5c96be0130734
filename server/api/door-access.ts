import { setTimeout as delay } from 'node:timers/promises';
import { type Client, isGrpcServiceError, WorkflowNotFoundError, type WorkflowExecutionDescription } from '@temporalio/client';
import { authorize, type AgentsConfig, type Catalog, type Requester as AccessRequester } from '../../agents';
import { loadCatalog } from '../../agents/custom-agents';
import { type Caller } from '../../infra/api-tokens';
import { ApiError } from '../../infra/errors';
import type { Requester as RunRequester } from '../../workflows/contracts';
import { Agent, Requester } from '../../workflows/search-attributes';

/** Access refusal codes (`agents/access.ts`) that answer 403; any other refusal is the request's (422). */
export const ACCESS_REFUSALS = new Set([
  'agent_feature_off',
  'agent_surface_excluded',
  'agent_restricted',
  'channel_grant',
  'person_grant',
  'token_grant',
  'self_serve_shell',
  'self_serve_excluded',
  // models.allowed / models.scriptedDirs: a model a message may not choose.
  'model_not_allowed',
]);

/** The caller as the access rules see it: its surface, its user id, its token's grant and self-serve flag. */
export function accessRequester(caller: Caller): AccessRequester {
  return {
    surface: caller.surface,
    userId: caller.userId,
    ...(caller.selfServe ? { selfServe: true } : {}),
    ...(caller.agents ? { grant: { agents: caller.agents, rule: `api.tokens.${caller.tokenId}.agents` } } : {}),
  };
}

/** The caller as a thread message and its runs carry it (the grant and self-serve flag follow into child runs). */
export function runRequester(caller: Caller): RunRequester {
  const { grant, selfServe } = accessRequester(caller);
  return { id: caller.userId, surface: caller.surface, ...(selfServe ? { selfServe } : {}), ...(grant ? { grant } : {}) };
}

export interface AccessOptions {
  agents: AgentsConfig;
  customAgentsDir?: string;
}

export function catalogOf(options: AccessOptions): Catalog {
  return loadCatalog(options.customAgentsDir).catalog;
}

/** Refuses with 403 and the rule unless the caller may use `agentId` from this door. */
export function assertMayUse(options: AccessOptions, caller: Caller, agentId: string): void {
  const allowed = authorize(catalogOf(options), options.agents, accessRequester(caller), agentId);
  if (!allowed.ok)
    throw new ApiError('access_refused', allowed.message, {
      refusal: allowed.code,
      rule: allowed.rule,
      alternatives: allowed.alternatives,
    });
}

/** The access rules' answer for one caller on one workflow: yes, or the refusal's code and words. */
export type TouchDecision = { ok: true } | { ok: false; refusal: string; message: string; rule?: string };

/**
 * Who may read, steer or stop a job or unit: the person who asked for it, or (as for Slack's
 * stop control) anyone the access rules let use its agent. A self-serve token reaches its own only.
 */
export function mayTouch(
  options: AccessOptions,
  caller: Caller,
  workflow: { requester?: string; agent?: string },
  what: string,
): TouchDecision {
  if (workflow.requester === caller.userId) return { ok: true };
  const agent = workflow.agent ?? (what === 'unit' ? 'ship' : undefined);
  if (caller.selfServe || !agent) {
    return {
      ok: false,
      refusal: 'not_requester',
      message: `This ${what} was started by someone else; a ${caller.selfServe ? 'self-serve token' : 'token'} reaches only its own.`,
    };
  }
  const allowed = authorize(catalogOf(options), options.agents, accessRequester(caller), agent);
  if (!allowed.ok)
    return { ok: false, refusal: allowed.code, rule: allowed.rule, message: `You may not reach this ${agent} ${what}: ${allowed.message}` };
  return { ok: true };
}

/** `mayTouch` for a described workflow, refusing with 403 and the rule. */
export function assertMayTouch(options: AccessOptions, caller: Caller, description: WorkflowExecutionDescription, what: string): void {
  const decision = mayTouch(
    options,
    caller,
    { requester: description.typedSearchAttributes.get(Requester), agent: description.typedSearchAttributes.get(Agent) },
    what,
  );
  if (!decision.ok) {
    throw new ApiError('access_refused', decision.message, {
      refusal: decision.refusal,
      ...(decision.rule ? { rule: decision.rule } : {}),
    });
  }
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
