import type { SignalDefinition } from '@temporalio/common';
import { isItemNumber, isRepositoryName } from '../tools/github-fields';
import {
  checksSignal,
  messageSignal,
  prEventSignal,
  shipUnitWorkflowType,
  threadWorkflowType,
  type ThreadInput,
  type ThreadMessage,
  type UnitChecksEvent as ChecksEvent,
  type UnitPullRequestEvent as PullRequestEvent,
} from '../workflows/contracts';

/**
 * Where one GitHub event goes: a signal to one workflow. A mention signal-with-starts its
 * thread; a unit event has no start arguments, because a PR with no running unit is not
 * Switchboard's, so the signal is dropped.
 */
export type RoutedGitHubEvent =
  | {
      workflowId: string;
      workflowType: typeof threadWorkflowType;
      signal: typeof messageSignal;
      args: [ThreadMessage];
      startArgs: [ThreadInput];
    }
  | {
      workflowId: string;
      workflowType: typeof shipUnitWorkflowType;
      /** `prEventSignal` with a PR event, or `checksSignal` with a checks event (paired by the router). */
      signal: SignalDefinition<[PullRequestEvent | ChecksEvent]>;
      args: [PullRequestEvent | ChecksEvent];
      startArgs?: undefined;
    };

/** The `prEvent` and `checks` signals' arguments: the unit's own contract. */
export type { UnitPullRequestEvent as PullRequestEvent, UnitChecksEvent as ChecksEvent } from '../workflows/contracts';

export interface RouteOptions {
  /** The App's login; comments must mention `@<botLogin>` to reach a thread. */
  botLogin: string;
  deliveryId?: string;
}

// Webhook payloads are external JSON, read defensively field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Payload = Record<string, any>;

/** GitHub's own limit on a comment's length; a longer body did not come from GitHub. */
const MAX_COMMENT_CHARS = 65_536;

/**
 * Why a payload cannot be GitHub's, or undefined. Every value that may become part of a
 * workflow id is checked where it appears, whatever the event: the repository's full name
 * (GitHub's owner/name grammar and lengths) and each issue, PR and check PR number (positive
 * safe integers, so never `1e300`, `2.5`, `0` or `-1`); and a comment body within GitHub's limit.
 */
export function malformedGitHubPayload(name: string, payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return 'the payload is not a JSON object';
  const body = payload as Payload;
  const repo = body.repository?.full_name;
  if (repo !== undefined && !isRepositoryName(repo)) return 'repository.full_name is not owner/name as GitHub allows it';
  const numbers: Array<[string, unknown]> = [
    ['number', body.number],
    ['issue.number', body.issue?.number],
    ['pull_request.number', body.pull_request?.number],
  ];
  const check = name === 'check_suite' || name === 'check_run' ? body[name] : undefined;
  for (const [path, list] of [
    [`${name}.pull_requests`, check?.pull_requests],
    [`${name}.check_suite.pull_requests`, check?.check_suite?.pull_requests],
  ] as const) {
    if (list === undefined) continue;
    if (!Array.isArray(list)) return `${path} is not a list`;
    list.forEach((entry: Payload | undefined, index: number) => numbers.push([`${path}.${index}.number`, entry?.number]));
  }
  const bad = numbers.find(([, value]) => value !== undefined && !isItemNumber(value));
  if (bad) return `${bad[0]} is not a positive whole number`;
  const comment = body.comment?.body;
  if (comment !== undefined && (typeof comment !== 'string' || comment.length > MAX_COMMENT_CHARS)) {
    return `comment.body is not text of at most ${MAX_COMMENT_CHARS} characters`;
  }
  return undefined;
}

/**
 * The one mapping from GitHub events to workflows. Pure: the webhook route verifies, parses,
 * calls this, and signals what it returns. Undefined means "not ours; acknowledge and drop".
 */
export function routeGitHubEvent(name: string, payload: Payload, options: RouteOptions): RoutedGitHubEvent | undefined {
  const repo: unknown = payload?.repository?.full_name;
  // `malformedGitHubPayload` refuses these first; checked again so no caller can build a bad id.
  if (!isRepositoryName(repo)) return undefined;
  switch (name) {
    case 'issue_comment':
      // GitHub marks a pull request's issue with `pull_request`; without it the conversation is a plain issue.
      return payload.action === 'created'
        ? mention(repo, payload.issue?.number, payload.comment, options, false, payload.issue?.pull_request === undefined)
        : undefined;
    case 'pull_request_review_comment':
      return payload.action === 'created' ? mention(repo, payload.pull_request?.number, payload.comment, options, true) : undefined;
    case 'pull_request': {
      const kind = pullKind(payload);
      const number = payload.pull_request?.number ?? payload.number;
      if (!kind || !isItemNumber(number)) return undefined;
      return prEvent(repo, number, {
        deliveryId: options.deliveryId,
        repo,
        number,
        kind,
        headSha: payload.pull_request?.head?.sha,
        actor: payload.sender?.login,
      } satisfies PullRequestEvent);
    }
    case 'pull_request_review': {
      const number = payload.pull_request?.number;
      if (payload.action !== 'submitted' || !isItemNumber(number)) return undefined;
      return prEvent(repo, number, {
        deliveryId: options.deliveryId,
        repo,
        number,
        kind: 'review',
        headSha: payload.review?.commit_id ?? payload.pull_request?.head?.sha,
        reviewState: String(payload.review?.state ?? '').toLowerCase(),
        reviewId: payload.review?.id,
        actor: payload.review?.user?.login ?? payload.sender?.login,
      } satisfies PullRequestEvent);
    }
    case 'check_suite':
    case 'check_run': {
      const check = payload[name];
      if (payload.action !== 'completed' || !check) return undefined;
      // A check belongs to a commit; GitHub lists the PRs whose head it is.
      const number = check.pull_requests?.[0]?.number ?? check.check_suite?.pull_requests?.[0]?.number;
      if (!isItemNumber(number)) return undefined;
      return checks(repo, number, {
        deliveryId: options.deliveryId,
        repo,
        number,
        headSha: check.head_sha,
        source: name,
        name: name === 'check_run' ? check.name : undefined,
        conclusion: check.conclusion ?? null,
      } satisfies ChecksEvent);
    }
    default:
      return undefined;
  }
}

function pullKind(payload: Payload): PullRequestEvent['kind'] | undefined {
  if (payload.action === 'opened' || payload.action === 'synchronize') return payload.action;
  if (payload.action === 'closed') return payload.pull_request?.merged ? 'merged' : 'closed';
  return undefined;
}

function prEvent(repo: string, number: number, event: PullRequestEvent): RoutedGitHubEvent {
  return { workflowId: `unit:${repo}#${number}`, workflowType: shipUnitWorkflowType, signal: prEventSignal, args: [event] };
}

function checks(repo: string, number: number, event: ChecksEvent): RoutedGitHubEvent {
  return { workflowId: `unit:${repo}#${number}`, workflowType: shipUnitWorkflowType, signal: checksSignal, args: [event] };
}

function mention(
  repo: string,
  number: unknown,
  comment: Payload | undefined,
  options: RouteOptions,
  reviewComment: boolean,
  issue = false,
): RoutedGitHubEvent | undefined {
  const body: string = comment?.body ?? '';
  const author: string = comment?.user?.login ?? '';
  const bot = options.botLogin.replace(/\[bot\]$/, '');
  // Never answer ourselves; only a mention of the App addresses it.
  if (!isItemNumber(number) || author.replace(/\[bot\]$/, '').toLowerCase() === bot.toLowerCase()) return undefined;
  const pattern = new RegExp(`(^|[^\\w@/])@${escape(bot)}(\\[bot\\])?(?![\\w-])`, 'i');
  if (!pattern.test(body)) return undefined;
  const threadId = `thread:gh:${repo}#${number}`;
  const replyTarget = { kind: 'github' as const, repo, pullRequest: number, ...(issue ? { issue: true } : {}) };
  // The message's own target names the comment that asked, so the answer can react on it.
  const commentId: unknown = comment?.id;
  const message: ThreadMessage = {
    messageId: `github:${options.deliveryId ?? `comment-${comment?.id}`}`,
    text: body.replace(pattern, '$1').trim(),
    requester: { id: `github:${author}`, surface: 'github', displayName: author },
    replyTarget: isItemNumber(commentId) ? { ...replyTarget, commentId, ...(reviewComment ? { reviewComment } : {}) } : replyTarget,
  };
  const start: ThreadInput = { threadId, replyTarget };
  return { workflowId: threadId, workflowType: threadWorkflowType, signal: messageSignal, args: [message], startArgs: [start] };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
