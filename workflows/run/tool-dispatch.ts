import type { ToolCall, ToolResult } from '../../activities/models/types';
import { getTool, parseToolInput, type ToolName } from '../../tools';
import { EXECUTORS, type ToolContext, type ToolExecutor } from './executors';
import { fail } from './executors/context';

/**
 * Runs one turn's tool calls: a tool outside the run's toolset is answered as an error and
 * never executed; consecutive concurrency-safe calls run together, the rest in order.
 * Results come back in call order, failures as data for the model.
 */
export async function executeToolCalls(ctx: ToolContext, calls: ToolCall[]): Promise<ToolResult[]> {
  const results: ToolResult[] = [];
  let batch: ToolCall[] = [];
  const flush = async () => {
    results.push(...(await Promise.all(batch.map((call) => executeOne(ctx, call)))));
    batch = [];
  };
  for (const call of calls) {
    if (getTool(call.name)?.concurrencySafe && ctx.state.input.profile.tools.includes(call.name)) {
      batch.push(call);
      continue;
    }
    await flush();
    results.push(await executeOne(ctx, call));
  }
  await flush();
  return results;
}

async function executeOne(ctx: ToolContext, call: ToolCall): Promise<ToolResult> {
  const { profile } = ctx.state.input;
  const tool = getTool(call.name);
  if (!tool || !profile.tools.includes(call.name)) {
    return fail(
      call,
      `The tool "${call.name}" is not available to this run (agent ${profile.agent}); it was not executed. Available tools: ${profile.tools.join(', ')}.`,
    );
  }
  const parsed = parseToolInput(tool, call.input);
  if (!parsed.ok) return fail(call, parsed.message);
  ctx.state.lastTool = call.name;
  ctx.touchCard();
  // The input was parsed by this tool's own schema, so it is the executor's input type.
  const execute = EXECUTORS[tool.name as ToolName] as ToolExecutor<ToolName>;
  const lossesBefore = ctx.workspaceLoss?.().losses ?? 0;
  let result: ToolResult;
  try {
    result = await execute(ctx, call, parsed.value as never);
  } catch (error) {
    if ((error as { type?: string }).type !== 'workspace_lost') throw error;
    return fail(call, (error as Error).message);
  }
  // The workspace was lost during this call, and the executor put it in its own words (a
  // command "did not report a result"): the model reads what was lost instead.
  const loss = ctx.workspaceLoss?.();
  if (result.isError && loss?.notice && loss.losses > lossesBefore) return fail(call, loss.notice);
  return result;
}
