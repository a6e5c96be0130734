import { createHash } from 'node:crypto';
import { type Client, WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { type ControlAction } from '../../agents';
import { createUnitClientActivities, type UnitClientDeps } from '../../activities/units/unit-client';
import { type Caller } from '../../infra/api-tokens';
import { ApiError } from '../../infra/errors';
import { steerUpdate, unitStateQuery, type ShipUnitInput, type UnitRecord } from '../../workflows/contracts';
import { pullRequestUnitId, taskUnitId } from '../../workflows/unit/unit-id';
import {
  assertAdmitted,
  assertMayTouch,
  assertWithinSpend,
  describeSettled,
  refusalError,
  runRequester,
  stopRunning,
  temporalError,
  type AccessOptions,
} from './door-access';
import type { Links, UnitRequest } from './schemas';

export interface UnitDoorOptions extends AccessOptions {
  client: Client;
  taskQueue: string;
  apiBase: string;
  webUi(id: string): string | undefined;
  /** What a new unit would lack (GitHub identities, model key); a start is refused with it. */
  preflight?: (input: ShipUnitInput) => string[];
  namespace?: string;
  /** A workflow's signed session page link, when links are on. */
  sessionLink?: (workflowId: string) => string | undefined;
  /** The spend caps and the ledger a new unit reserves its first round in (none: nothing is capped). */
  unitSpend?: UnitClientDeps['spend'];
}

/**
 * Ship units from the API: start one for an exact PR or a requested change (one unit per PR
 * or slug: a second request steers the one there, when the caller may steer it), list the
 * caller's, read, steer and stop. Starting one is admitted as `ship` (access, model, sandbox),
 * like asking for one in Slack; reading, steering and stopping one as its requester's.
 */
export function createUnitDoor(options: UnitDoorOptions) {
  const { client } = options;
  const starter = createUnitClientActivities({
    client,
    taskQueue: options.taskQueue,
    ...(options.preflight ? { preflight: options.preflight } : {}),
    ...(options.namespace ? { namespace: options.namespace } : {}),
    ...(options.unitSpend ? { spend: options.unitSpend } : {}),
  });
  const links = (unitId: string): Links => {
    const link = options.webUi(unitId);
    const session = options.sessionLink?.(unitId);
    return {
      self: `${options.apiBase}/units/${encodeURIComponent(unitId)}`,
      ...(link ? { webUi: link } : {}),
      ...(session ? { session } : {}),
    };
  };

  /** The unit's description once the admission says the caller may `action` it (its requester, or an admin token). */
  async function describeUnit(caller: Caller, unitId: string, action: ControlAction) {
    if (!unitId.startsWith('unit:')) throw new ApiError('not_found', `There is no unit ${unitId}.`);
    const handle = client.workflow.getHandle(unitId);
    const description = await describeSettled(client, unitId, 5_000).catch((error: unknown) => temporalError(error, `unit ${unitId}`));
    await assertMayTouch(options, caller, unitId, description, action);
    return { handle, description };
  }

  /** A unit already running under this id takes a second request as a steer: only when this caller may steer it. */
  async function assertMaySteerExisting(caller: Caller, unitId: string): Promise<void> {
    const description = await client.workflow
      .getHandle(unitId)
      .describe()
      .catch((error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return undefined;
        throw error;
      });
    if (description?.status.name === 'RUNNING') await assertMayTouch(options, caller, unitId, description, 'steer');
  }

  return {
    async startUnit(caller: Caller, body: UnitRequest, idempotencyKey?: string) {
      // Asking for a unit is asking for `ship`, admitted like a job: access, the model, the sandbox.
      await assertAdmitted(options, caller, { agent: 'ship', repo: body.repo, ...(body.model ? { model: body.model } : {}) });
      // A unit started here passes no thread: a daily cap already used up refuses it here; its first round is reserved as it starts.
      await assertWithinSpend(options, { person: caller.userId, repo: body.repo, agent: 'ship' });
      const unitId = body.pullRequest !== undefined ? pullRequestUnitId(body.repo, body.pullRequest) : taskUnitId(body.repo, body.request!);
      // The same key (per token) is the same start: the unit's memo remembers it, so a retry steers nothing.
      const effectKey = idempotencyKey
        ? `api:${createHash('sha256').update(`${caller.tokenId}\n${idempotencyKey}`).digest('hex').slice(0, 32)}`
        : undefined;
      try {
        if (body.request) await assertMaySteerExisting(caller, unitId);
        const started = await starter.startUnit({
          unitId,
          repo: body.repo,
          replyTarget: { kind: 'api' },
          requester: runRequester(caller),
          ...(body.request ? { request: body.request } : {}),
          ...(body.pullRequest !== undefined ? { pullRequest: body.pullRequest } : {}),
          ...(body.model ? { model: body.model } : {}),
          ...(body.budgetMinutes !== undefined ? { budgetMinutes: body.budgetMinutes } : {}),
          ...(effectKey ? { effectKey } : {}),
        });
        // Units started at once on a capped repository: the ledger funds as many first rounds as the cap allows.
        if (started.status === 'refused' && started.code === 'spend_cap')
          throw refusalError('spend_cap', started.reason ?? 'Not started.', { ...started.spend });
        if (started.status === 'refused')
          throw new ApiError('request_refused', started.reason ?? 'Not started.', { refusal: 'settings_missing' });
        return { unitId, status: started.status, links: links(unitId) };
      } catch (error) {
        if (error instanceof ApiError) throw error;
        return temporalError(error, `unit ${unitId}`);
      }
    },

    async listUnits(caller: Caller, filter: { repo?: string; limit?: number }) {
      try {
        // An admin token sees every person's units; any other its own.
        const units = await starter.listUnits({ ...(caller.admin ? {} : { requester: caller.userId }), ...filter });
        return { units };
      } catch (error) {
        return temporalError(error, 'unit list');
      }
    },

    async getUnit(caller: Caller, unitId: string) {
      const { handle, description } = await describeUnit(caller, unitId, 'read');
      const state = description.status.name.toLowerCase();
      try {
        if (state === 'running') return { unitId, state, unit: await handle.query(unitStateQuery), links: links(unitId) };
        return { unitId, state, record: (await handle.result()) as UnitRecord, links: links(unitId) };
      } catch (error) {
        if (error instanceof WorkflowFailedError)
          return { unitId, state, error: error.cause?.message ?? error.message, links: links(unitId) };
        return temporalError(error, `unit ${unitId}`);
      }
    },

    async steerUnit(caller: Caller, unitId: string, text: string): Promise<{ accepted: true }> {
      const { handle, description } = await describeUnit(caller, unitId, 'steer');
      if (description.status.name !== 'RUNNING')
        throw new ApiError('steer_rejected', `The unit has settled (${description.status.name.toLowerCase()}).`);
      try {
        return await handle.executeUpdate(steerUpdate, { args: [{ text, by: caller.userId }] });
      } catch (error) {
        if (error instanceof WorkflowUpdateFailedError) throw new ApiError('steer_rejected', error.cause?.message ?? error.message);
        return temporalError(error, `unit ${unitId}`);
      }
    },

    async stopUnit(caller: Caller, unitId: string, reason?: string): Promise<{ stopping: true; id: string }> {
      const unit = await describeUnit(caller, unitId, 'stop');
      return stopRunning(unit, { id: unitId, what: 'unit', ended: 'settled', by: caller.userId, ...(reason ? { reason } : {}) });
    },
  };
}
