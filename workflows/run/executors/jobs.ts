import type { ToolCall, ToolResult } from '../../contracts/model';
import type { ToolInput } from '../../../tools';
import { fail, ok } from './tool-result';
import { type ToolContext, type ToolExecutor } from './context';

export const DEFAULT_JOB_POLL_SECONDS = 60;

/** A background task's job id is awaited by the run; a detached sandbox job is polled. */
export const waitForJob: ToolExecutor<'wait_for_job'> = (ctx, call, input) =>
  input.jobId !== undefined ? ctx.waitForTask(call, input.jobId) : waitForDetachedJob(ctx, call, input);

/** Polls a detached job's exit file with workflow timers: no model turns are spent waiting. */
async function waitForDetachedJob(ctx: ToolContext, call: ToolCall, input: ToolInput<'wait_for_job'>): Promise<ToolResult> {
  const exitFile = input.exitFile!;
  const logFile = input.logFile;
  const pollMs = (input.pollSeconds ?? DEFAULT_JOB_POLL_SECONDS) * 1_000;
  ctx.state.phase = 'waiting';
  ctx.touchCard();
  for (;;) {
    const job = await ctx.activities.files.jobStatus({ workspace: ctx.workspace, exitFile, ...(logFile ? { logFile } : {}) });
    ctx.state.jobWaits.polls += 1;
    const tail = job.logTail ? `\nLast lines of ${logFile}:\n${job.logTail}` : '';
    if (job.done)
      return ok(call, `The job finished with exit code ${job.exitCode ?? 'unknown'} after ${ctx.state.jobWaits.polls} checks.${tail}`);
    if (job.error) return fail(call, `Stopped waiting: ${job.error}${tail}`);
    const wait = Math.min(pollMs, ctx.remainingMs());
    if (wait <= 0) return fail(call, `The budget ended while the job was still running (no ${exitFile} yet).${tail}`);
    await ctx.sleep(wait);
    ctx.state.jobWaits.waitedMs += wait;
  }
}
