import { setTimeout as delay } from 'node:timers/promises';
import { type LocalMessage, type LocalSlack } from '../local-slack';
import { type IssueState } from '../local-github/state';
import { type FollowedWorkflow } from './follow';
import { type ProductProcess } from './product';

export interface ReadyReport {
  unitId: string;
  pullRequest: number;
  headSha: string;
  /** The ready message as the Slack thread shows it. */
  message: LocalMessage;
}

/**
 * Waits for the unit's ready message in the Slack thread (its effect key is
 * `<unit id>/ready/<head sha>`, its text `PR #<n> on <repo> is ready: …`). Fails early when
 * Switchboard exits or the unit settles first, with the log's tail.
 */
export async function waitForReady(options: {
  slack: LocalSlack;
  channel: string;
  threadTs: string;
  workflows: FollowedWorkflow[];
  product: ProductProcess;
  timeoutMs: number;
}): Promise<ReadyReport> {
  const { slack, product } = options;
  let exited: string | undefined;
  void product.exited.then((how) => (exited = how));
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (exited) throw new Error(`Switchboard exited (${exited}) before the unit was ready:\n${product.logTail()}`);
    const thread = slack.state.thread(options.channel, options.threadTs);
    for (const message of thread) {
      const key = message.metadata?.event_payload.effect_key;
      const match = typeof key === 'string' ? /^(unit:.+)\/ready\/([0-9a-f]{40})$/.exec(key) : null;
      const pullRequest = /PR #(\d+)/.exec(message.text)?.[1];
      if (match && pullRequest) return { unitId: match[1], headSha: match[2], pullRequest: Number(pullRequest), message };
    }
    // The unit's final report starts "Ship unit <id> <outcome>".
    const settled = thread.find((message) => /^Ship unit \S+ /.test(message.text));
    if (settled) throw new Error(`the unit settled before it was ready: ${settled.text}`);
    if (Date.now() > deadline) {
      const seen = options.workflows.map((workflow) => workflow.workflowId).join(', ');
      throw new Error(`no ready report within ${options.timeoutMs / 1000} s (workflows: ${seen || 'none'}):\n${product.logTail()}`);
    }
    await delay(250);
  }
}

/**
 * The review threads of a pull request as the demo prints them: where each finding sits, whether
 * its thread is resolved, and the replies in it (their first line), so the terminal shows the
 * conversation a reviewer would read on GitHub.
 */
export function reviewThreadLines(item: IssueState | undefined): string[] {
  if (!item) return [];
  const firstLine = (body: string) => body.split('\n')[0].slice(0, 120);
  return item.reviewComments
    .filter((comment) => comment.inReplyTo === undefined)
    .flatMap((root) => [
      `  Thread on ${root.path}:${root.line} (${root.resolvedBy ? `resolved by ${root.resolvedBy}` : 'open'}): ${firstLine(root.body)}`,
      ...item.reviewComments.filter((reply) => reply.inReplyTo === root.id).map((reply) => `    ↳ ${reply.user}: ${firstLine(reply.body)}`),
    ]);
}
