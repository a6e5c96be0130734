import type { Profile } from '../contracts/profile';
import type { ReplyTarget, ShipUnitInput, ThreadMessage } from '../contracts';
import { pullRequestUnitId, taskUnitId } from '../unit/unit-id';

/**
 * The `patched()` id of a thread that asks the admission before a code-change request steers a
 * unit that already exists (it must be the person's own, or theirs to steer by the conversation's
 * surface). Threads recorded before it sent such a request to the unit as a steer.
 */
export const SHIP_STEER_ADMITTED = 'thread-ship-steer-admitted';

/** The ship unit a thread's code-change request starts, or why it cannot. */
export type ShipStart = { input: ShipUnitInput } | { refused: { code: 'repo_missing'; reply: string } };

/**
 * Which unit a code-change request in a conversation becomes. On a pull request's conversation
 * (same repository): that exact PR's unit. On a plain issue's: a new unit for the change, whose
 * PR fixes the issue (`Fixes #<n>` in its body) and which reports in the issue. Elsewhere: a unit
 * named from the request. The request's budget and effort directives, its channel and its
 * explicit model go with it: they narrow the unit's runs as they narrow a run. (Issue
 * assignment and labels, later, start units through this same function.)
 */
export function shipStart(
  request: string,
  profile: Pick<Profile, 'repo' | 'model' | 'effort' | 'budget'>,
  message: Pick<ThreadMessage, 'requester' | 'channelId'>,
  replyTarget: ReplyTarget,
  threadId: string,
): ShipStart {
  const conversation = replyTarget.kind === 'github' ? replyTarget : undefined;
  const target = profile.repo?.value ?? conversation?.repo;
  if (!target) {
    return {
      refused: {
        code: 'repo_missing',
        reply: 'That is a code change for a ship unit, but no repository is named. Say it as `in owner/name: <the change>`.',
      },
    };
  }
  const here = conversation !== undefined && conversation.repo === target;
  const onPullRequest = here && !conversation.issue ? conversation.pullRequest : undefined;
  const onIssue = here && conversation.issue ? conversation.pullRequest : undefined;
  return {
    input: {
      unitId: onPullRequest !== undefined ? pullRequestUnitId(target, onPullRequest) : taskUnitId(target, request),
      repo: target,
      request,
      replyTarget,
      requester: message.requester,
      threadId,
      ...(onPullRequest !== undefined ? { pullRequest: onPullRequest } : {}),
      ...(onIssue !== undefined ? { issue: onIssue } : {}),
      ...(profile.model.chosenBy === 'directive' ? { model: profile.model.value } : {}),
      ...(profile.budget.requestedMinutes !== undefined ? { budgetMinutes: profile.budget.requestedMinutes } : {}),
      ...(profile.effort.chosenBy === 'directive' ? { effort: profile.effort.value } : {}),
      ...(message.channelId ? { channelId: message.channelId } : {}),
    },
  };
}
