import { patched, upsertSearchAttributes } from '@temporalio/workflow';
import { hostBound, status, unitWorkspace } from '../activity-proxies';
import type { ReplyTarget } from '../contracts';
import { Outcome, Phase } from '../search-attributes';

/**
 * The `patched()` id of releasing a cancelled thread's workspace on its host's queue
 * (docs/versioning.md). Called only when the thread knows a host; threads ended before it
 * released on the shared queue, and replay them so.
 */
export const THREAD_RELEASE_ON_HOST = 'thread-release-on-host-queue';

/**
 * The end of a cancelled thread, after its run (if any) was stopped and answered: the thread's
 * workspace released (a later message starts afresh), `Phase`/`Outcome` set so the Web UI and
 * `Phase=` queries see it ended, and one line in the conversation saying so. Each step is a
 * lost view at worst, never a thread that fails without ending.
 */
export async function endThread(input: {
  threadId: string;
  replyTarget: ReplyTarget;
  unanswered: number;
  /** The queue of the host that holds the thread's workspace (its last run's), if it has one. */
  workspaceHost?: string;
}): Promise<void> {
  const { threadId, replyTarget, unanswered, workspaceHost } = input;
  const workspace = { key: threadId, network: true };
  // The workspace lives on its host's disk: released anywhere else it stays behind. A host that
  // is gone (schedule-to-start timeout) has nothing left to release.
  const release =
    workspaceHost && patched(THREAD_RELEASE_ON_HOST)
      ? hostBound(workspaceHost).unitWorkspace.releaseWorkspace({ workspace })
      : unitWorkspace.releaseWorkspace({ workspace });
  await release.catch(() => undefined);
  upsertSearchAttributes([
    { key: Phase, value: 'finished' },
    { key: Outcome, value: 'stopped' },
  ]);
  const dropped = unanswered > 0 ? ` ${unanswered} queued message${unanswered === 1 ? ' was' : 's were'} not run.` : '';
  await status
    .deliverReply({ effectKey: `${threadId}/cancelled`, replyTarget, text: `This thread was cancelled.${dropped}` })
    .catch(() => undefined);
}
