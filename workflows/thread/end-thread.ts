import { upsertSearchAttributes } from '@temporalio/workflow';
import { status, unitWorkspace } from '../activity-proxies';
import type { ReplyTarget } from '../contracts';
import { Outcome, Phase } from '../search-attributes';

/**
 * The end of a cancelled thread, after its run (if any) was stopped and answered: the thread's
 * workspace released (a later message starts afresh), `Phase`/`Outcome` set so the Web UI and
 * `Phase=` queries see it ended, and one line in the conversation saying so. Each step is a
 * lost view at worst, never a thread that fails without ending.
 */
export async function endThread(input: { threadId: string; replyTarget: ReplyTarget; unanswered: number }): Promise<void> {
  const { threadId, replyTarget, unanswered } = input;
  await unitWorkspace.releaseWorkspace({ workspace: { key: threadId, network: true } }).catch(() => undefined);
  upsertSearchAttributes([
    { key: Phase, value: 'finished' },
    { key: Outcome, value: 'stopped' },
  ]);
  const dropped = unanswered > 0 ? ` ${unanswered} queued message${unanswered === 1 ? ' was' : 's were'} not run.` : '';
  await status
    .deliverReply({ effectKey: `${threadId}/cancelled`, replyTarget, text: `This thread was cancelled.${dropped}` })
    .catch(() => undefined);
}
