import type { ToolCall, ToolResult } from '../../../activities/models/types';
import { steerSignal, stopSignal, type UnitState } from '../../contracts';
import { pullRequestUnitId, taskUnitId } from '../../unit/unit-id';
import { errorMessage, fail, ok, type ToolContext, type ToolExecutor } from './context';

/**
 * The orchestrator's unit tools: start, inspect, steer and stop the person's linked ship
 * units, and list what is running. Steer and stop are signals to the unit; a unit someone
 * else asked for is refused. Failures come back as data.
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
    ...(run.profile.model.chosenBy === 'directive' ? { model: run.profile.model.value } : {}),
  });
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

/** The unit's state when it is the person's own (and, for a change, still running); else the refusal. */
async function linkedUnit(
  ctx: ToolContext,
  call: ToolCall,
  unitId: string,
  options: { unsettled?: boolean } = {},
): Promise<{ state: UnitState } | { refused: ToolResult }> {
  const person = ctx.state.input.requester.id;
  const state = await ctx.activities.units.inspectUnit({ unitId });
  if (state.requester !== person)
    return { refused: fail(call, `${unitId} is not one of your linked units (it was asked for by ${state.requester}); nothing was done.`) };
  if (options.unsettled && state.outcome)
    return { refused: fail(call, `${unitId} has already settled (${state.outcome}); nothing was done.`) };
  return { state };
}
