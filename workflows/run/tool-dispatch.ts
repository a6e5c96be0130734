import { isCancellation, sleep } from '@temporalio/workflow';
import type { ToolCall, ToolResult } from '../../activities/models/types';
import type { WorkspaceRef } from '../../activities/sandbox/types';
import { getTool, parseToolInput } from '../../tools';
import { files, shell } from './activities';
import { runAttachTool } from './attach-tools';
import { runGitHubTool } from './github-tools';
import { runSkillTool } from './skill-tools';
import { TOOL_EXECUTORS } from './tool-executors';
import { runUnitTool } from './unit-tools';
import { runWebTool } from './web-tools';
import type { RunState } from './run-state';
import { grepCommand, findFilesCommand, listDirectoryCommand, describeBash, describeFile } from './tool-text';

/** What executing a call needs from the workflow that owns the run. */
export interface DispatchContext {
  state: RunState;
  workspace: WorkspaceRef;
  /** Marks the status card for its next (throttled) update. */
  touchCard(): void;
  /** Starts a `task` child run; resolves with the tool result (sync) or at once (background). */
  runTask(call: ToolCall, input: Record<string, unknown>): Promise<ToolResult>;
  /** Waits for a background task by job id; resolves when it ended or the budget did. */
  waitForTask(call: ToolCall, jobId: string): Promise<ToolResult>;
  /** Millis left in the budget (the workflow clock). */
  remainingMs(): number;
  /** The effect key of a publishing call: `<runId>/<tool>/<turn>.<index>`, stable across retries and replays. */
  effectKey(call: ToolCall): string;
}

export const DEFAULT_JOB_POLL_SECONDS = 60;

/**
 * Runs one turn's tool calls: a tool outside the run's toolset is answered as an error and
 * never executed; consecutive concurrency-safe calls run together, the rest in order.
 * Results come back in call order, failures as data for the model.
 */
export async function executeToolCalls(ctx: DispatchContext, calls: ToolCall[]): Promise<ToolResult[]> {
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

function fail(call: ToolCall, content: string): ToolResult {
  return { callId: call.id, name: call.name, content, isError: true };
}

function ok(call: ToolCall, content: string): ToolResult {
  return { callId: call.id, name: call.name, content };
}

async function executeOne(ctx: DispatchContext, call: ToolCall): Promise<ToolResult> {
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
  const input = parsed.value as Record<string, unknown>;
  ctx.state.lastTool = call.name;
  ctx.touchCard();
  const workspace = ctx.workspace;
  switch (call.name) {
    case 'bash':
      return runBash(ctx, call, input.command as string, input.timeoutMs as number | undefined);
    case 'grep':
      return runBash(ctx, call, grepCommand(input));
    case 'find_files':
      return runBash(ctx, call, findFilesCommand(input));
    case 'list_directory':
      return runBash(ctx, call, listDirectoryCommand(input));
    case 'read_file': {
      const result = await files.readFile({
        workspace,
        path: input.path as string,
        offset: input.offset as number | undefined,
        limit: input.limit as number | undefined,
      });
      return result.ok ? ok(call, describeFile(result)) : fail(call, `${result.code}: ${result.error}`);
    }
    case 'write_file': {
      const result = await files.writeFile({ workspace, path: input.path as string, content: input.content as string });
      return result.ok ? ok(call, `Wrote ${result.bytes} bytes to ${result.path}.`) : fail(call, `${result.code}: ${result.error}`);
    }
    case 'update_status':
      ctx.state.statusText = input.summary as string;
      return ok(call, 'Status card updated.');
    case 'submit_review':
    case 'submit_description':
      ctx.state.submissions[call.name] = input;
      return ok(call, `${call.name === 'submit_review' ? 'Review' : 'Description'} recorded; it is delivered when the run ends.`);
    case 'task':
      return ctx.runTask(call, input);
    case 'wait_for_job':
      if (input.jobId !== undefined) return ctx.waitForTask(call, input.jobId as string);
      return waitForDetachedJob(ctx, call, input);
    default:
      return runFamily(ctx, call, input);
  }
}

/** Tools executed by their own modules, by the family the executor map gives them. */
function runFamily(ctx: DispatchContext, call: ToolCall, input: Record<string, unknown>): Promise<ToolResult> {
  const { profile } = ctx.state.input;
  switch (TOOL_EXECUTORS[call.name]) {
    case 'github':
      return runGitHubTool(call, input, profile, ctx.effectKey(call));
    case 'unit':
      return runUnitTool(call, input, ctx.state.input, ctx.effectKey(call));
    case 'web':
      return runWebTool(call, input);
    case 'skills':
      return runSkillTool(call, input, profile.machine === 'none' ? undefined : ctx.workspace);
    case 'attach':
      return runAttachTool(call, input, {
        workspace: ctx.workspace,
        replyTarget: ctx.state.input.replyTarget,
        profile,
        effectKey: ctx.effectKey(call),
      });
    default:
      // Unreachable while tool-executors.test.ts passes: every tool has an executor.
      return Promise.resolve(fail(call, `No executor runs "${call.name}"; nothing was done.`));
  }
}

async function runBash(ctx: DispatchContext, call: ToolCall, command: string, timeoutMs?: number): Promise<ToolResult> {
  const { profile } = ctx.state.input;
  try {
    const result = await shell.bash({
      workspace: ctx.workspace,
      command,
      timeoutMs,
      identity: profile.identity,
      // The network door lets a write identity push only to this repository, and picks the agent's destinations.
      ...(profile.repo ? { repo: profile.repo.value } : {}),
      agent: profile.agent,
      machine: profile.machine,
    });
    const text = describeBash(result);
    return result.exitCode === 0 ? ok(call, text) : fail(call, text);
  } catch (error) {
    if (isCancellation(error)) throw error;
    // The command's worker was lost (or the sandbox failed): its effect is unknown, and it is not re-run.
    return fail(
      call,
      `The command did not report a result (${errorMessage(error)}). It may or may not have run; check its effects before repeating it.`,
    );
  }
}

/** Polls a detached job's exit file with workflow timers: no model turns are spent waiting. */
async function waitForDetachedJob(ctx: DispatchContext, call: ToolCall, input: Record<string, unknown>): Promise<ToolResult> {
  const exitFile = input.exitFile as string;
  const logFile = input.logFile as string | undefined;
  const pollMs = ((input.pollSeconds as number | undefined) ?? DEFAULT_JOB_POLL_SECONDS) * 1_000;
  ctx.state.phase = 'waiting';
  ctx.touchCard();
  for (;;) {
    const job = await files.jobStatus({ workspace: ctx.workspace, exitFile, ...(logFile ? { logFile } : {}) });
    ctx.state.jobWaits.polls += 1;
    const tail = job.logTail ? `\nLast lines of ${logFile}:\n${job.logTail}` : '';
    if (job.done)
      return ok(call, `The job finished with exit code ${job.exitCode ?? 'unknown'} after ${ctx.state.jobWaits.polls} checks.${tail}`);
    if (job.error) return fail(call, `Stopped waiting: ${job.error}${tail}`);
    const wait = Math.min(pollMs, ctx.remainingMs());
    if (wait <= 0) return fail(call, `The budget ended while the job was still running (no ${exitFile} yet).${tail}`);
    await sleep(wait);
    ctx.state.jobWaits.waitedMs += wait;
  }
}

function errorMessage(error: unknown): string {
  const failure = error as { message?: string; cause?: { message?: string } };
  return failure.cause?.message ?? failure.message ?? String(error);
}
