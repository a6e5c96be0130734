import { isCancellation } from '@temporalio/workflow';
import { errorMessage, fail, ok } from './tool-result';
import { type ToolExecutor } from './context';

/** attach_file: posts a workspace file to the run's conversation, at most once per call (its effect key). */
export const attachFile: ToolExecutor<'attach_file'> = async (ctx, call, input) => {
  const { profile, replyTarget } = ctx.state.input;
  try {
    const result = await ctx.activities.attach.attachFile({
      workspace: ctx.workspace,
      path: input.path,
      ...(input.title ? { title: input.title } : {}),
      ...(input.comment ? { comment: input.comment } : {}),
      replyTarget,
      effectKey: ctx.effectKey(call),
      identity: profile.identity === 'write' ? 'write' : 'read',
    });
    if (result.status === 'confirmed') {
      const cut = result.truncated ? ' Only its beginning fit in the comment; say so if it matters.' : '';
      return ok(call, `Attached ${input.path} to the conversation${result.url ? ` (${result.url})` : ''}.${cut}`);
    }
    if (result.status === 'unconfirmed') {
      return fail(
        call,
        `Posting ${input.path} could not be confirmed (${result.reason ?? 'its result was lost'}); it was not posted again. Do not say it is attached.`,
      );
    }
    return fail(call, `The file was not attached: ${result.reason ?? 'refused'}.`);
  } catch (error) {
    if (isCancellation(error)) throw error;
    const reason = errorMessage(error);
    // A non-retryable failure (no credential for the target) was decided before anything was sent.
    const nonRetryable = (error as { cause?: { nonRetryable?: boolean } }).cause?.nonRetryable;
    return fail(
      call,
      nonRetryable
        ? `The file was not attached: ${reason}.`
        : `attach_file did not report a result (${reason}); do not say the file is attached.`,
    );
  }
};
