import type { ReplyTarget, ThreadMessage } from '../contracts';
import { staticDetails } from '../details';
import type { Decision } from './decide';
import type { Decided } from './message-decider';
import type { RunLaunch } from './run-start';
import type { CurrentRun, ThreadMemory } from './thread-memory';

/** A decision to run. */
export type RunDecision = Extract<Decision, { kind: 'run' }>;

/** Who asked for the run and what it runs, on which repository (the directive's, else the GitHub conversation's). */
export function currentRunOf(message: ThreadMessage, decision: RunDecision, replyTarget: ReplyTarget): CurrentRun {
  return {
    requester: message.requester.id,
    agent: decision.agent,
    ...(decision.profile.repo ? { repo: decision.profile.repo.value } : replyTarget.kind === 'github' ? { repo: replyTarget.repo } : {}),
  };
}

/**
 * The run a decision starts: its input (the request, the conversation's saved context, the
 * workspace's host, the spend cap, a review's extras, the routing, a channel's board) and what
 * the Web UI shows of it.
 */
export function runLaunch(runId: string, decided: Decided & { decision: RunDecision }, memory: ThreadMemory, namespace: string): RunLaunch {
  const { message, replyTarget, decision, spend } = decided;
  const { threadId, workspaceHost } = memory;
  return {
    runId,
    // The request first: it is what the Web UI's input view shows at the top.
    input: {
      request: decision.request,
      requester: message.requester,
      threadId,
      replyTarget,
      profile: decision.profile,
      system: decision.system,
      context: memory.savedContext(),
      ...(workspaceHost ? { workspaceHost } : {}),
      ...(spend.spendCap ? { spendCap: spend.spendCap } : {}),
      // A review of the conversation's pull request: once per commit, and after an earlier one, what a push resolved.
      ...memory.reviews.runExtras(decision.profile.tools, replyTarget, threadId, message),
      ...(decision.routing ? { routing: decision.routing } : {}),
      ...(decision.board ? { board: decision.board } : {}),
    },
    staticSummary: `${decision.agent}: ${decision.request.slice(0, 120)}`,
    staticDetails: staticDetails({
      kind: 'run',
      request: decision.request,
      requester: message.requester,
      agent: decision.agent,
      ...(decision.profile.repo ? { repo: decision.profile.repo.value } : {}),
      ...(replyTarget.kind === 'github' ? { repo: replyTarget.repo, pullRequest: replyTarget.pullRequest } : {}),
      threadId,
      namespace,
    }),
  };
}
