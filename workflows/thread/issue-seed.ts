import type { IssueThread } from '../contracts/github';
import type { ThreadMessage } from '../contracts';

/**
 * The `patched()` id of a thread that seeds an issue's ship unit with the issue itself (its
 * title, body and comments, read when the message's turn comes). Threads recorded before it
 * never got such a message.
 */
export const THREAD_SEEDS_ISSUES = 'thread-seeds-issue-units';

/**
 * The message an issue's unit is decided from: `agent:ship` and the issue as the request —
 * `Issue #12: <title>`, its body, and the people's comments — so the unit's slug, its coding
 * run's request and its PR (`Fixes #12`) all come from the issue.
 */
export function seededMessage(message: ThreadMessage, issue: IssueThread): ThreadMessage {
  const parts = [`Issue #${issue.number}: ${issue.title.trim()}`];
  if (issue.body.trim()) parts.push(issue.body.trim());
  if (issue.comments.length > 0)
    parts.push(
      [
        `Comments on the issue${issue.omitted > 0 ? ` (the newest ${issue.comments.length}; ${issue.omitted} older or Switchboard's own left out)` : ''}:`,
        ...issue.comments.map((comment) => `@${comment.author ?? 'someone'}: ${comment.body.trim()}`),
      ].join('\n'),
    );
  return { ...message, text: `agent:ship ${parts.join('\n\n')}` };
}
