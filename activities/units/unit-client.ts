import { type Client, type WorkflowExecutionInfo, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { visibilityQuery } from '../../infra/visibility';
import { Outcome, Phase, PullRequest, Repo } from '../../workflows/search-attributes';
import {
  failure,
  planWorkflowType,
  shipUnitWorkflowType,
  steerSignal,
  unitStateQuery,
  type PlanInput,
  type ShipUnitInput,
  type UnitState,
} from '../../workflows/contracts';
import { staticDetails } from '../../workflows/details';
import type { SpendVerdict } from '../../workflows/contracts/spend';
import { applicableCaps, RESERVE_DEFAULTS } from '../../agents/spend-caps';
import type { SpendConfig } from '../../infra/config/spend-section';
import type { SpendReservation, SpendReserveRequest } from '../../workflows/contracts';
import { unitSummary } from '../../workflows/unit/unit-id';
import type { StartPlanResult, StartUnitResult, UnitSummary } from '../../workflows/contracts/unit-client';

export interface UnitClientDeps {
  client: Client;
  taskQueue: string;
  /** For the unit's Web UI details: the namespace (thread links) and GitHub's web base (PR links). */
  namespace?: string;
  githubWebUrl?: string;
  /**
   * The settings a new unit would lack (GitHub identities, its model's key), each naming what to
   * set; a start is refused with them instead of failing a moment later in the workflow.
   */
  preflight?: (input: ShipUnitInput) => string[];
  /**
   * The spend caps and the ledger's `reserve`, when any cap is configured: a new unit under a
   * daily cap reserves its first round before it starts, and is refused when the caps cannot fund it.
   */
  spend?: { config: SpendConfig; reserve(request: SpendReserveRequest): Promise<SpendReservation> };
}

/** One listed execution as `fleet_status` shows it: its id, status, repository, PR, phase, outcome and age. */
export function unitSummaryOf(
  execution: Pick<WorkflowExecutionInfo, 'workflowId' | 'status' | 'typedSearchAttributes' | 'startTime'>,
  now: number,
): UnitSummary {
  const attributes = execution.typedSearchAttributes;
  const [repo, pullRequest, phase, outcome] = [
    attributes.get(Repo),
    attributes.get(PullRequest),
    attributes.get(Phase),
    attributes.get(Outcome),
  ];
  const started = execution.startTime?.getTime();
  return {
    unitId: execution.workflowId,
    status: execution.status.name,
    ...(repo !== undefined ? { repo } : {}),
    ...(pullRequest !== undefined ? { pullRequest } : {}),
    ...(phase !== undefined ? { phase } : {}),
    ...(outcome !== undefined ? { outcome } : {}),
    ...(started !== undefined
      ? { startedAt: new Date(started).toISOString(), ageMinutes: Math.max(0, Math.round((now - started) / 60_000)) }
      : {}),
  };
}

/** The effect key the unit's latest execution was started under (its memo), if it exists. */
async function startedBy(client: Client, workflowId: string): Promise<unknown> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).memo?.effectKey;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

async function isRunning(client: Client, workflowId: string): Promise<boolean> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** A new unit's first round held in the spend ledger, or its refusal (undefined: funded, capped by nothing, or already running). */
async function reserveFirstRound(deps: UnitClientDeps, input: ShipUnitInput, effectKey?: string): Promise<StartUnitResult | undefined> {
  if (!deps.spend) return undefined;
  const scope = {
    person: input.requester.id,
    ...(input.channelId ? { channel: input.channelId } : {}),
    repo: input.repo,
    agent: 'ship',
  };
  const caps = applicableCaps(deps.spend.config, scope);
  // A unit that runs already holds its own round: a second request only steers it.
  if (!caps.some((cap) => cap.dailyUsd !== undefined) || (await isRunning(deps.client, input.unitId))) return undefined;
  const round = deps.spend.config.reserve?.unitRoundUsd ?? RESERVE_DEFAULTS.unitRoundUsd;
  const verdict: SpendVerdict = await deps.spend.reserve({
    holder: input.unitId,
    by: effectKey ?? 'a door',
    kind: 'unit',
    atLeastUsd: round,
    upToUsd: round,
    scope,
    caps,
    threadId: input.threadId ?? input.unitId,
  });
  if (verdict.kind !== 'refuse') return undefined;
  return {
    unitId: input.unitId,
    status: 'refused',
    code: 'spend_cap',
    reason: verdict.reply,
    spend: {
      scope: verdict.scope,
      id: verdict.id,
      spentUsd: verdict.spentUsd,
      reservedUsd: verdict.reservedUsd ?? 0,
      capUsd: verdict.capUsd,
      ...(verdict.neededUsd !== undefined ? { neededUsd: verdict.neededUsd } : {}),
      resetsAt: new Date(verdict.resetsAt).toISOString(),
    },
  };
}

/** The unit's static details in the Web UI: request, requester, repository, PR and thread links. */
export function unitDetails(input: ShipUnitInput, where: { namespace?: string; githubWebUrl?: string }): string {
  return staticDetails({
    kind: 'unit',
    ...(input.request ? { request: input.request } : {}),
    requester: input.requester,
    agent: 'ship',
    repo: input.repo,
    ...(input.pullRequest ? { pullRequest: input.pullRequest } : {}),
    ...(input.threadId ? { threadId: input.threadId } : {}),
    ...(where.namespace ? { namespace: where.namespace } : {}),
    ...(where.githubWebUrl ? { githubWebUrl: where.githubWebUrl } : {}),
  });
}

/**
 * What workflows cannot do themselves: start a unit on its own id (never a child of the
 * thread that asked), read another workflow's query, list units from visibility.
 */
export function createUnitClientActivities(deps: UnitClientDeps) {
  return {
    /**
     * Starts the unit on its own id. A unit that exists is steered with the request (one unit
     * per PR), unless this very call started it: a retry after a lost answer finds its own
     * effect key in the unit's memo and does nothing twice.
     */
    async startUnit(request: ShipUnitInput & { effectKey?: string }): Promise<StartUnitResult> {
      const { effectKey, ...input } = request;
      const missing = deps.preflight?.(input) ?? [];
      if (missing.length > 0 && !(await isRunning(deps.client, input.unitId))) {
        return {
          unitId: input.unitId,
          status: 'refused',
          code: 'settings_missing',
          reason: `Not started: a ship unit needs ${missing.join('; and ')}.`,
        };
      }
      // This very effect started the unit before (an earlier attempt, or the run of a workflow since reset),
      // whether the unit still runs or has settled: nothing is started or steered twice.
      if (effectKey && (await startedBy(deps.client, input.unitId)) === effectKey) return { unitId: input.unitId, status: 'started' };
      // Under a daily spend cap a new unit's first round is reserved before it starts (docs/models.md "Reservations").
      const unfunded = await reserveFirstRound(deps, input, effectKey);
      if (unfunded) return unfunded;
      try {
        await deps.client.workflow.start(shipUnitWorkflowType, {
          workflowId: input.unitId,
          taskQueue: deps.taskQueue,
          args: [input],
          ...(effectKey ? { memo: { effectKey } } : {}),
          staticSummary: unitSummary(input),
          staticDetails: unitDetails(input, deps),
        });
        return { unitId: input.unitId, status: 'started' };
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        const handle = deps.client.workflow.getHandle(input.unitId);
        if (effectKey && (await handle.describe()).memo?.effectKey === effectKey) return { unitId: input.unitId, status: 'started' };
        // One unit per PR or slug: a second request steers the one that exists.
        if (input.request) await handle.signal(steerSignal, { text: input.request, by: input.requester.id });
        return { unitId: input.unitId, status: 'steered' };
      }
    },

    /**
     * Starts a plan on its own id (never a child of the conversation that asked). A plan with that
     * id still running is not started again: `running`, unless this very call started it (a retry
     * after a lost answer finds its effect key in the plan's memo).
     */
    async startPlan(request: PlanInput & { effectKey?: string }): Promise<StartPlanResult> {
      const { effectKey, ...input } = request;
      if (effectKey && (await startedBy(deps.client, input.planId)) === effectKey) return { planId: input.planId, status: 'started' };
      try {
        await deps.client.workflow.start(planWorkflowType, {
          workflowId: input.planId,
          taskQueue: deps.taskQueue,
          args: [input],
          ...(effectKey ? { memo: { effectKey } } : {}),
          staticSummary: `plan ${input.repo}: ${input.units.map((unit) => unit.key).join(', ')}`.slice(0, 200),
          staticDetails: staticDetails({
            kind: 'plan',
            requester: input.requester,
            agent: 'ship',
            repo: input.repo,
            ...(input.threadId ? { threadId: input.threadId } : {}),
            ...(deps.namespace ? { namespace: deps.namespace } : {}),
          }),
        });
        return { planId: input.planId, status: 'started' };
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        if (effectKey && (await startedBy(deps.client, input.planId)) === effectKey) return { planId: input.planId, status: 'started' };
        return { planId: input.planId, status: 'running' };
      }
    },

    async inspectUnit(input: { unitId: string }): Promise<UnitState> {
      try {
        return await deps.client.workflow.getHandle(input.unitId).query(unitStateQuery);
      } catch (error) {
        throw failure(
          'unit_not_found',
          `unit ${input.unitId} cannot be inspected: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    },

    /** Units (or plans, or runs) from visibility, optionally only one person's and one repository's. */
    async listUnits(input: { requester?: string; repo?: string; kind?: 'unit' | 'plan' | 'run'; limit?: number }): Promise<UnitSummary[]> {
      const query = visibilityQuery({ SwitchboardKind: input.kind ?? 'unit', Requester: input.requester, Repo: input.repo });
      const units: UnitSummary[] = [];
      for await (const execution of deps.client.workflow.list({ query })) {
        units.push(unitSummaryOf(execution, Date.now()));
        if (units.length >= (input.limit ?? 50)) break;
      }
      return units;
    },
  };
}
