import type { AgentSetup } from '../../activities/agents/agent-setup';
import type { StatusActivities } from '../activity-proxies';
import type { ReplyTarget, ThreadMessage } from '../contracts';
import type { BoardCommandContext } from './board-command';

/**
 * What `/board`, `/subconscious run` and a run's consolidation need of the message being decided (the setup it was
 * decided with). After a run, where the repository's board consolidates runs, one that did work worth keeping is
 * read by rem-agent (thread/board-command.ts `consolidateRun`).
 */
export function boardAt(
  setup: AgentSetup,
  threadId: string,
  status: Pick<StatusActivities, 'deliverReply'>,
  activities: BoardCommandContext['activities'],
  about: { message: ThreadMessage; replyTarget: ReplyTarget; repo: string | undefined },
): BoardCommandContext {
  const { message, replyTarget, repo } = about;
  return {
    setup,
    message,
    replyTarget,
    threadId,
    ...(repo ? { repo } : {}),
    activities,
    deliverReply: (reply) => status.deliverReply(reply),
  };
}
