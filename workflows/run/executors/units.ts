import type { ToolCall, ToolResult } from '../../contracts/model';
import { admitStart, authorize, unitToolsRefusal } from '../../../agents';
import { steerSignal, stopSignal, type UnitState } from '../../contracts';
import { conversationOf } from '../../thread/decide';
import { personOfRun } from '../task-children';
import { pullRequestUnitId, taskUnitId } from '../../unit/unit-id';
import { errorMessage, fail, ok } from './tool-result';
import { type ToolContext, type ToolExecutor } from './context';

/**
 * The `patched()` id of the unit tools asking the admission: only in the person's own private
 * DM (or the CLI), `unit_start` admitted as `ship` for the person, and a unit that already
 * exists steered only when it is the person's or linked here. Runs recorded before it did none.
 */
export const UNIT_TOOLS_ADMITTED = 'unit-tools-admitted';

/**
 * The orchestrator's unit tools: start, inspect, steer and stop the person's linked ship
 * units, and list what is running. Steer and stop are signals to the unit; a unit someone
 * else asked for is refused, and so is every unit tool outside the person's own DM (agents/admission.ts).
 * Failures come back as data.
 */
function unitTool<Name extends 'unit_start' | 'unit_inspect' | 'unit_steer' | 'unit_stop' | 'fleet_status'>(
  run: (ctx: ToolContext, call: ToolCall, input: Parameters<ToolExecutor<Name>>[2]) => Promise<ToolResult>,
): ToolExecutor<Name> {
  return async (ctx, call, input) => {
    try {
      return await run(ctx, call, input);
    } catch (error) {
      return fail(call, `The unit tool failed: ${errorMessage(error)}`);
    }
  };
}

export const unitStart = unitTool<'unit_start'>(async (ctx, call, input) => {
  const run = ctx.state.input;
  const { repo, pullRequest } = input;
  const unitId = pullRequest
    ? pullRequestUnitId(repo, pullRequest)
    : input.slug
      ? `unit:${repo}:${input.slug}`
      : taskUnitId(repo, input.request);
  const chosenModel = run.profile.model.chosenBy === 'directive' ? run.profile.model.value : undefined;
  if (admits(ctx)) {
    const place = unitToolsRefusal(personOfRun(run), conversationOf(run.replyTarget));
    if (place) return fail(call, place.message);
    // Starting a unit is asking for `ship`: the person must be admitted for it, as in any other door.
    const setup = await loadSetup(ctx);
    const allowed = admitStart(setup, { person: personOfRun(run), agent: 'ship', repo, ...(chosenModel ? { model: chosenModel } : {}) });
    if (!allowed.ok) return fail(call, `${allowed.message} (${allowed.code})`);
    // One unit per PR or slug: one that is running takes the request as a steer, if it is the person's to steer.
    const existing = await ctx.activities.units.inspectUnit({ unitId }).catch(() => undefined);
    if (existing && !existing.outcome && !linkedTo(ctx, existing))
      return fail(
        call,
        `${unitId} already exists and is not one of your linked units (it was asked for by ${existing.requester}); nothing was done.`,
      );
  }
  const started = await ctx.activities.units.startUnit({
    unitId,
    repo,
    request: input.request,
    replyTarget: run.replyTarget,
    requester: run.requester,
    threadId: run.threadId,
    effectKey: ctx.effectKey(call),
    ...(pullRequest ? { pullRequest } : {}),
    // The person's explicit model choice carries over to the unit's runs.
    ...(chosenModel ? { model: chosenModel } : {}),
  });
  // Refused: settings the unit needs are missing, or the daily spend caps cannot fund its first round.
  if (started.status === 'refused') return fail(call, started.reason ?? `${unitId} was not started.`);
  return ok(call, started.status === 'started' ? `Started ${unitId}.` : `${unitId} already exists; the request was sent to it as a steer.`);
});

export const fleetStatus = unitTool<'fleet_status'>(async (ctx, call, input) => {
  const person = ctx.state.input.requester.id;
  const kinds = input.kind === undefined || input.kind === 'all' ? (['unit', 'plan', 'run'] as const) : [input.kind];
  const lists = await Promise.all(
    kinds.map((kind) =>
      ctx.activities.units.listUnits({ kind, requester: person, limit: 25, ...(input.repo ? { repo: input.repo } : {}) }),
    ),
  );
  const rows = lists.flat();
  return ok(call, rows.length === 0 ? 'Nothing of yours is running or recorded.' : JSON.stringify(rows, null, 1));
});

export const unitInspect = unitTool<'unit_inspect'>(async (ctx, call, input) => {
  const place = admits(ctx) ? unitToolsRefusal(personOfRun(ctx.state.input), conversationOf(ctx.state.input.replyTarget)) : undefined;
  if (place) return fail(call, place.message);
  const linked = await linkedUnit(ctx, call, input.unitId);
  return 'refused' in linked ? linked.refused : ok(call, JSON.stringify(linked.state, null, 1));
});

export const unitSteer = unitTool<'unit_steer'>(async (ctx, call, input) => {
  const linked = await linkedUnit(ctx, call, input.unitId, { unsettled: true });
  if ('refused' in linked) return linked.refused;
  await ctx.signal(input.unitId, steerSignal, { text: input.text, by: ctx.state.input.requester.id });
  return ok(call, `Sent to ${input.unitId}; it joins the unit's next coding round.`);
});

export const unitStop = unitTool<'unit_stop'>(async (ctx, call, input) => {
  const linked = await linkedUnit(ctx, call, input.unitId, { unsettled: true });
  if ('refused' in linked) return linked.refused;
  await ctx.signal(input.unitId, stopSignal, { reason: input.reason, by: ctx.state.input.requester.id });
  return ok(call, `Stop sent to ${input.unitId}; it settles as stopped.`);
});

/**
 * The unit's state when it is the person's own or linked to this conversation (and, for a change,
 * still running, outside a private DM's refusal, and with the person still admitted for `ship`);
 * else the refusal.
 */
async function linkedUnit(
  ctx: ToolContext,
  call: ToolCall,
  unitId: string,
  options: { unsettled?: boolean } = {},
): Promise<{ state: UnitState } | { refused: ToolResult }> {
  const run = ctx.state.input;
  const admitted = options.unsettled && admits(ctx);
  if (admitted) {
    const place = unitToolsRefusal(personOfRun(run), conversationOf(run.replyTarget));
    if (place) return { refused: fail(call, place.message) };
  }
  const state = await ctx.activities.units.inspectUnit({ unitId });
  if (!linkedTo(ctx, state))
    return { refused: fail(call, `${unitId} is not one of your linked units (it was asked for by ${state.requester}); nothing was done.`) };
  if (options.unsettled && state.outcome)
    return { refused: fail(call, `${unitId} has already settled (${state.outcome}); nothing was done.`) };
  if (admitted) {
    // A steer or stop is a message to the unit's agent: the person must still be admitted for `ship`.
    const setup = await loadSetup(ctx);
    const access = authorize(setup.catalog, setup.config, personOfRun(run), 'ship');
    if (!access.ok) return { refused: fail(call, `${access.message} (${access.code}); nothing was done.`) };
  }
  return { state };
}

/** The person's own unit, or one started from this very conversation. */
function linkedTo(ctx: ToolContext, state: UnitState): boolean {
  const run = ctx.state.input;
  return state.requester === run.requester.id || (state.threadId !== undefined && state.threadId === run.threadId);
}

/** The admission applies unless the run replays a history recorded before it. */
function admits(ctx: ToolContext): boolean {
  return ctx.patched ? ctx.patched(UNIT_TOOLS_ADMITTED) : true;
}

async function loadSetup(ctx: ToolContext) {
  if (!ctx.activities.setup) throw new Error('the agent setup is not available to this run');
  return ctx.activities.setup.loadAgentSetup();
}
