import { isCancellation, proxyActivities } from '@temporalio/workflow';
import type { AttachActivities } from '../../activities/attach';
import type { ToolCall, ToolResult } from '../../activities/models/types';
import type { WorkspaceRef } from '../../activities/sandbox/types';
import type { Profile } from '../../agents/profile';
import type { ReplyTarget } from '../contracts';

/**
 * An upload of up to 20 MB, plus a thread search; a retry looks for the marker first, so an
 * unknown result is never posted twice (the activity says `unconfirmed` instead).
 */
const attach = proxyActivities<AttachActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 6 },
});

export const ATTACH_TOOLS = new Set(['attach_file']);

/** attach_file: posts a workspace file to the run's conversation, at most once per call. */
export async function runAttachTool(
  call: ToolCall,
  input: Record<string, unknown>,
  run: { workspace: WorkspaceRef; replyTarget: ReplyTarget; profile: Profile; effectKey: string },
): Promise<ToolResult> {
  try {
    const result = await attach.attachFile({
      workspace: run.workspace,
      path: input.path as string,
      ...(input.title ? { title: input.title as string } : {}),
      ...(input.comment ? { comment: input.comment as string } : {}),
      replyTarget: run.replyTarget,
      effectKey: run.effectKey,
      identity: run.profile.identity === 'write' ? 'write' : 'read',
    });
    if (result.status === 'confirmed') {
      const cut = result.truncated ? ' Only its beginning fit in the comment; say so if it matters.' : '';
      return {
        callId: call.id,
        name: call.name,
        content: `Attached ${input.path as string} to the conversation${result.url ? ` (${result.url})` : ''}.${cut}`,
      };
    }
    if (result.status === 'unconfirmed') {
      return {
        callId: call.id,
        name: call.name,
        content: `Posting ${input.path as string} could not be confirmed (${result.reason ?? 'its result was lost'}); it was not posted again. Do not say it is attached.`,
        isError: true,
      };
    }
    return { callId: call.id, name: call.name, content: `The file was not attached: ${result.reason ?? 'refused'}.`, isError: true };
  } catch (error) {
    if (isCancellation(error)) throw error;
    const failure = error as { message?: string; cause?: { message?: string; nonRetryable?: boolean } };
    const reason = failure.cause?.message ?? failure.message ?? String(error);
    // A non-retryable failure (no credential for the target) was decided before anything was sent.
    const content = failure.cause?.nonRetryable
      ? `The file was not attached: ${reason}.`
      : `attach_file did not report a result (${reason}); do not say the file is attached.`;
    return { callId: call.id, name: call.name, content, isError: true };
  }
}
