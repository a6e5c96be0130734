import type { ToolCall, ToolResult } from '../contracts/model';
import { getTool, parseToolInput, type ToolName } from '../../tools';
import { EXECUTORS, type ToolContext, type ToolExecutor } from './executors';
import { fail } from './executors/tool-result';
import { traceTool } from '../tracing';

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
  // An MCP server's tool (discovered at the run's start) is called through its own activity.
  const mcp = ctx.mcp?.has(call.name) ? ctx.mcp : undefined;
  if (!mcp && (!tool || !profile.tools.includes(call.name))) {
    const available = [...profile.tools, ...(ctx.state.mcp?.tools ?? []).map((entry) => entry.name)];
    return fail(
      call,
      `The tool "${call.name}" is not available to this run (agent ${profile.agent}); it was not executed. Available tools: ${available.join(', ')}.`,
    );
  }
  let execute: () => Promise<ToolResult>;
  if (mcp) execute = () => mcp.execute(call);
  else {
    const parsed = parseToolInput(tool!, call.input);
    if (!parsed.ok) return fail(call, parsed.message);
    // The input was parsed by this tool's own schema, so it is the executor's input type.
    const executor = EXECUTORS[tool!.name as ToolName] as ToolExecutor<ToolName>;
    execute = () => executor(ctx, call, parsed.value as never);
  }
  ctx.state.lastTool = call.name;
  ctx.touchCard();
  const lossesBefore = ctx.workspaceLoss?.().losses ?? 0;
  let result: ToolResult;
  try {
    result = await traceTool(call, execute);
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
