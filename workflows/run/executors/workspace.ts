import { isCancellation } from '@temporalio/workflow';
import type { ToolCall, ToolResult } from '../../contracts/model';
import { describeBash, describeFile, findFilesCommand, grepCommand, HONEST_LISTINGS, listDirectoryCommand } from '../tool-text';
import type { OwnedRefs } from '../../contracts';
import { errorMessage, fail, ok } from './tool-result';
import { type ToolContext, type ToolExecutor } from './context';

/** How a shell command's result begins when its worker was lost mid-command (a unit reads it: the round's work may be gone). */
export const LOST_COMMAND = 'The command did not report a result';

/** The workspace tools: a shell command, and the reads and writes built on the sandbox activities. */
export const bash: ToolExecutor<'bash'> = (ctx, call, input) => runBash(ctx, call, input.command, input.timeoutMs);

export const grep: ToolExecutor<'grep'> = (ctx, call, input) => runBash(ctx, call, grepCommand(input));

export const findFiles: ToolExecutor<'find_files'> = (ctx, call, input) => runBash(ctx, call, findFilesCommand(input, legacyListing(ctx)));

export const listDirectory: ToolExecutor<'list_directory'> = (ctx, call, input) =>
  runBash(ctx, call, listDirectoryCommand(input, legacyListing(ctx)));

/** A run recorded before find_files and list_directory kept their descriptions' promises replays their old commands. */
function legacyListing(ctx: ToolContext): boolean {
  return ctx.patched ? !ctx.patched(HONEST_LISTINGS) : false;
}

export const readFile: ToolExecutor<'read_file'> = async (ctx, call, input) => {
  const result = await ctx.activities.files.readFile({
    workspace: ctx.workspace,
    path: input.path,
    offset: input.offset,
    limit: input.limit,
  });
  return result.ok ? ok(call, describeFile(result)) : fail(call, `${result.code}: ${result.error}`);
};

export const writeFile: ToolExecutor<'write_file'> = async (ctx, call, input) => {
  const result = await ctx.activities.files.writeFile({ workspace: ctx.workspace, path: input.path, content: input.content });
  return result.ok ? ok(call, `Wrote ${result.bytes} bytes to ${result.path}.`) : fail(call, `${result.code}: ${result.error}`);
};

/**
 * The branches this run's own commands may push to: a direct coding run's branch (its own, or
 * the pull request's it was asked from and admitted to). No other run pushes from its shell: a
 * unit's runs leave the push to the unit, and the door refuses a push that names no owned ref.
 */
function ownedRefs(ctx: ToolContext): OwnedRefs | undefined {
  const direct = ctx.state.direct;
  if (direct?.mode !== 'coding' || !direct.branch) return undefined;
  return direct.pullRequest ? { own: [], pullRequest: { number: direct.pullRequest, head: direct.branch } } : { own: [direct.branch] };
}

async function runBash(ctx: ToolContext, call: ToolCall, command: string, timeoutMs?: number): Promise<ToolResult> {
  const { profile } = ctx.state.input;
  const refs = ownedRefs(ctx);
  try {
    const result = await ctx.activities.shell.bash({
      workspace: ctx.workspace,
      command,
      timeoutMs,
      identity: profile.identity,
      // The network door lets a write identity push only to this repository, and picks the agent's destinations.
      ...(profile.repo ? { repo: profile.repo.value } : {}),
      ...(refs ? { refs } : {}),
      agent: profile.agent,
      machine: profile.machine,
    });
    const text = describeBash(result);
    return result.exitCode === 0 ? ok(call, text) : fail(call, text);
  } catch (error) {
    if (isCancellation(error)) throw error;
    // The command's worker was lost (or the sandbox failed): its effect is unknown, and it is not re-run.
    return fail(call, `${LOST_COMMAND} (${errorMessage(error)}). It may or may not have run; check its effects before repeating it.`);
  }
}
