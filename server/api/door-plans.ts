import { createHash } from 'node:crypto';
import { type Client, WorkflowFailedError } from '@temporalio/client';
import { graphProblems } from '../../activities/plans/plan-document';
import { createUnitClientActivities } from '../../activities/units/unit-client';
import { type Caller } from '../../infra/api-tokens';
import { ApiError } from '../../infra/errors';
import { planStateQuery, type PlanRecord } from '../../workflows/contracts';
import { planUnitId } from '../../workflows/plan/plan-failed';
import {
  assertAdmitted,
  assertMayTouch,
  describeSettled,
  refusalError,
  runRequester,
  stopRunning,
  temporalError,
  type AccessOptions,
} from './door-access';
import type { Links } from './schemas';
import type { PlanRequest } from './plan-schemas';

export interface PlanDoorOptions extends AccessOptions {
  client: Client;
  taskQueue: string;
  apiBase: string;
  webUi(id: string): string | undefined;
  namespace?: string;
  sessionLink?: (workflowId: string) => string | undefined;
}

/**
 * Plans from the API and MCP: start one (admitted as `ship` on its repository for the caller,
 * through the one admission, as a plan asked for in Slack or on GitHub is), list the caller's,
 * read one (each unit with its status, PR, phase, spend and its own link), stop one. Each unit is
 * a unit of the API's: read, steered and stopped at `/units/{unitId}`.
 */
export function createPlanDoor(options: PlanDoorOptions) {
  const { client } = options;
  const starter = createUnitClientActivities({
    client,
    taskQueue: options.taskQueue,
    ...(options.namespace ? { namespace: options.namespace } : {}),
  });
  const links = (id: string, kind: 'plans' | 'units'): Links => {
    const link = options.webUi(id);
    const session = options.sessionLink?.(id);
    return {
      self: `${options.apiBase}/${kind}/${encodeURIComponent(id)}`,
      ...(link ? { webUi: link } : {}),
      ...(session ? { session } : {}),
    };
  };

  async function describePlan(caller: Caller, planId: string, action: 'read' | 'stop') {
    if (!planId.startsWith('plan:')) throw new ApiError('not_found', `There is no plan ${planId}.`);
    const description = await describeSettled(client, planId, 5_000).catch((error: unknown) => temporalError(error, `plan ${planId}`));
    await assertMayTouch(options, caller, planId, description, action);
    return { handle: client.workflow.getHandle(planId), description };
  }

  return {
    async startPlan(caller: Caller, body: PlanRequest, idempotencyKey?: string) {
      // A plan starts ship units for its caller: admitted as `ship` on its repository, like a unit (access, model, sandbox).
      await assertAdmitted(options, caller, { agent: 'ship', repo: body.repo, ...(body.model ? { model: body.model } : {}) });
      const problems = graphProblems(body.units);
      if (problems.length > 0) throw refusalError('plan_invalid', `That plan cannot start: ${problems.join('; ')}.`, { problems });
      const planId = `plan:${body.repo}:${body.name}`;
      const effectKey = idempotencyKey
        ? `api:${createHash('sha256').update(`${caller.tokenId}\n${idempotencyKey}`).digest('hex').slice(0, 32)}`
        : undefined;
      const input = {
        planId,
        repo: body.repo,
        units: body.units,
        replyTarget: { kind: 'api' as const },
        requester: runRequester(caller),
        ...(body.model ? { model: body.model } : {}),
        ...(body.mergeAuthority !== undefined ? { mergeAuthority: body.mergeAuthority } : {}),
      };
      const started = await starter
        .startPlan({ ...input, ...(effectKey ? { effectKey } : {}) })
        .catch((error: unknown) => temporalError(error, `plan ${planId}`));
      if (started.status === 'running') throw refusalError('plan_running', `Plan ${planId} is still running; it was not started again.`);
      return {
        planId,
        status: 'started' as const,
        units: body.units.map((unit) => ({ key: unit.key, unitId: planUnitId(input, unit.key) })),
        links: links(planId, 'plans'),
      };
    },

    async listPlans(caller: Caller, filter: { repo?: string; limit?: number }) {
      try {
        const found = await starter.listUnits({ kind: 'plan', ...(caller.admin ? {} : { requester: caller.userId }), ...filter });
        return {
          plans: found.map(({ unitId, status, repo, phase, outcome }) => ({
            planId: unitId,
            status,
            ...(repo ? { repo } : {}),
            ...(phase ? { phase } : {}),
            ...(outcome ? { outcome } : {}),
          })),
        };
      } catch (error) {
        return temporalError(error, 'plan list');
      }
    },

    async getPlan(caller: Caller, planId: string) {
      const { handle, description } = await describePlan(caller, planId, 'read');
      const state = description.status.name.toLowerCase();
      const unitLinks = <T extends { unitId: string }>(units: T[]) =>
        units.map((unit) => ({ ...unit, links: links(unit.unitId, 'units') }));
      try {
        if (state === 'running') {
          const live = await handle.query(planStateQuery);
          return {
            planId,
            state,
            mergeAuthority: live.mergeAuthority,
            units: unitLinks(live.units),
            merged: live.merged,
            links: links(planId, 'plans'),
          };
        }
        const record = (await handle.result()) as PlanRecord;
        return {
          planId,
          state,
          mergeAuthority: record.mergeAuthority,
          units: unitLinks(record.units),
          merged: record.merged,
          record,
          links: links(planId, 'plans'),
        };
      } catch (error) {
        if (error instanceof WorkflowFailedError)
          return { planId, state, error: error.cause?.message ?? error.message, links: links(planId, 'plans') };
        return temporalError(error, `plan ${planId}`);
      }
    },

    async stopPlan(caller: Caller, planId: string, reason?: string): Promise<{ stopping: true; id: string }> {
      const plan = await describePlan(caller, planId, 'stop');
      return stopRunning(plan, { id: planId, what: 'plan', ended: 'ended', by: caller.userId, ...(reason ? { reason } : {}) });
    },
  };
}
