import { getExternalWorkflowHandle } from '@temporalio/workflow';
import type { ToolCall, ToolResult } from '../../activities/models/types';
import { steerSignal, stopSignal, type RunInput } from '../contracts';
import { units } from '../unit/unit-activities';
import { pullRequestUnitId, taskUnitId } from '../unit/unit-id';

/** The orchestrator's unit tools (the toolset gives them to the orchestrator only). */
export const UNIT_TOOLS = new Set(['unit_start', 'unit_inspect', 'unit_steer', 'unit_stop', 'fleet_status']);

/**
 * Starts, inspects, steers and stops the person's linked ship units. Steer and stop are
 * signals through external workflow handles; a unit someone else asked for is refused.
 */
export async function runUnitTool(call: ToolCall, input: Record<string, unknown>, run: RunInput, effectKey: string): Promise<ToolResult> {
  const person = run.requester.id;
  const answer = (content: string, isError = false): ToolResult => ({
    callId: call.id,
    name: call.name,
    content,
    ...(isError ? { isError } : {}),
  });
  try {
    if (call.name === 'unit_start') {
      const repo = input.repo as string;
      const pullRequest = input.pullRequest as number | undefined;
      const unitId = pullRequest
        ? pullRequestUnitId(repo, pullRequest)
        : input.slug
          ? `unit:${repo}:${input.slug as string}`
          : taskUnitId(repo, input.request as string);
      const started = await units.startUnit({
        unitId,
        repo,
        request: input.request as string,
        replyTarget: run.replyTarget,
        requester: run.requester,
        threadId: run.threadId,
        effectKey,
        ...(pullRequest ? { pullRequest } : {}),
        // The person's explicit model choice carries over to the unit's runs.
        ...(run.profile.model.chosenBy === 'directive' ? { model: run.profile.model.value } : {}),
      });
      return answer(
        started.status === 'started' ? `Started ${unitId}.` : `${unitId} already exists; the request was sent to it as a steer.`,
      );
    }
    if (call.name === 'fleet_status') {
      const kinds =
        input.kind === undefined || input.kind === 'all' ? (['unit', 'plan', 'run'] as const) : [input.kind as 'unit' | 'plan' | 'run'];
      const lists = await Promise.all(
        kinds.map((kind) => units.listUnits({ kind, requester: person, limit: 25, ...(input.repo ? { repo: input.repo as string } : {}) })),
      );
      const rows = lists.flat();
      return answer(rows.length === 0 ? 'Nothing of yours is running or recorded.' : JSON.stringify(rows, null, 1));
    }
    const unitId = input.unitId as string;
    const state = await units.inspectUnit({ unitId });
    if (state.requester !== person)
      return answer(`${unitId} is not one of your linked units (it was asked for by ${state.requester}); nothing was done.`, true);
    if (call.name === 'unit_inspect') return answer(JSON.stringify(state, null, 1));
    if (state.outcome) return answer(`${unitId} has already settled (${state.outcome}); nothing was done.`, true);
    if (call.name === 'unit_steer') {
      await getExternalWorkflowHandle(unitId).signal(steerSignal, { text: input.text as string, by: person });
      return answer(`Sent to ${unitId}; it joins the unit's next coding round.`);
    }
    await getExternalWorkflowHandle(unitId).signal(stopSignal, { reason: input.reason as string, by: person });
    return answer(`Stop sent to ${unitId}; it settles as stopped.`);
  } catch (error) {
    const failure = error as { message?: string; cause?: { message?: string } };
    return answer(`The unit tool failed: ${failure.cause?.message ?? failure.message ?? String(error)}`, true);
  }
}
