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

/** Where GitHub delivers webhooks on the server (the App's webhook URL is the public URL and this). */
export const GITHUB_WEBHOOK_PATH = '/webhooks/github';

/**
 * The webhook events Switchboard acts on, in one list: the App manifest of `switchboard setup
 * github` subscribes to exactly these, `switchboard doctor` checks an App against them, and the
 * webhook route acknowledges any other event without reading it. `routeGitHubEvent` and
 * `repositoryEvent` below handle each (github-event-routing.test.ts keeps them equal).
 */
export const GITHUB_WEBHOOK_EVENTS = [
  { event: 'issues', why: 'an issue assigned to the bot or labelled becomes a ship unit; unassigned, unlabelled or closed stops it' },
  { event: 'issue_comment', why: 'mentions of the bot on issues and pull requests' },
  { event: 'pull_request', why: "a unit's pull request opened, pushed, closed or merged; automatic reviews" },
  { event: 'pull_request_review', why: "people's reviews of a unit's pull request" },
  { event: 'pull_request_review_comment', why: 'mentions of the bot on lines of a pull request' },
  { event: 'check_suite', why: "CI finished on a unit's head commit" },
  { event: 'check_run', why: "CI finished on a unit's head commit" },
] as const;

/** Whether Switchboard acts on this webhook event at all. */
export function isWebhookEvent(name: string): boolean {
  return GITHUB_WEBHOOK_EVENTS.some((entry) => entry.event === name);
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
    // A mention while the conversation's run works is for that run: it steers it (through the thread's admission).
    addressedToRun: true,
    replyTarget: isItemNumber(commentId) ? { ...replyTarget, commentId, ...(reviewComment ? { reviewComment } : {}) } : replyTarget,
  };
  const start: ThreadInput = { threadId, replyTarget };
  return { workflowId: threadId, workflowType: threadWorkflowType, signal: messageSignal, args: [message], startArgs: [start] };
}

/**
 * A repository event the door may turn into work, depending on the repository's settings
 * (server/github-work.ts): an automatic review of a pull request, or an issue's ship unit started
 * (assigned to the bot, labelled) or stopped (unassigned, unlabelled, closed). Pure, like the routing above.
 */
export type RepositoryEvent =
  | {
      kind: 'review';
      repo: string;
      number: number;
      trigger: 'opened' | 'ready_for_review' | 'review_requested' | 'push';
      headSha?: string;
      /** Who did it (the author, the pusher, who asked for the review): the admission's person. */
      actor: string;
      /** The pull request's author (the bot's own pull requests are its units', reviewed by them). */
      author?: string;
      deliveryId?: string;
    }
  | {
      kind: 'issue';
      repo: string;
      number: number;
      action: 'start' | 'stop';
      how: 'assigned' | 'labeled' | 'closed';
      /** The label added or removed (the door compares it with the repository's `issues.label`). */
      label?: string;
      actor: string;
      title: string;
      body: string;
      deliveryId?: string;
    };

export function repositoryEvent(name: string, payload: Payload, options: RouteOptions): RepositoryEvent | undefined {
  const repo: unknown = payload?.repository?.full_name;
  if (!isRepositoryName(repo)) return undefined;
  const actor: unknown = payload.sender?.login;
  if (typeof actor !== 'string' || !actor || isBotLogin(actor, options.botLogin)) return undefined;
  const deliveryId = options.deliveryId;
  if (name === 'pull_request') {
    const pull = payload.pull_request;
    const number = pull?.number ?? payload.number;
    if (!isItemNumber(number) || pull?.state === 'closed') return undefined;
    const trigger =
      payload.action === 'opened' && !pull?.draft
        ? 'opened'
        : payload.action === 'ready_for_review'
          ? 'ready_for_review'
          : payload.action === 'synchronize'
            ? 'push'
            : payload.action === 'review_requested' && isBotLogin(String(payload.requested_reviewer?.login ?? ''), options.botLogin)
              ? 'review_requested'
              : undefined;
    if (!trigger) return undefined;
    const author: unknown = pull?.user?.login;
    return {
      kind: 'review',
      repo,
      number,
      trigger,
      ...(typeof pull?.head?.sha === 'string' ? { headSha: pull.head.sha } : {}),
      actor,
      ...(typeof author === 'string' ? { author } : {}),
      ...(deliveryId ? { deliveryId } : {}),
    };
  }
  if (name === 'issues') {
    const issue = payload.issue;
    if (!isItemNumber(issue?.number) || issue.pull_request !== undefined) return undefined;
    const assignee = String(payload.assignee?.login ?? '');
    const label: unknown = payload.label?.name;
    const base = {
      kind: 'issue' as const,
      repo,
      number: issue.number as number,
      actor,
      title: String(issue.title ?? ''),
      body: String(issue.body ?? ''),
    };
    const extra = deliveryId ? { deliveryId } : {};
    if ((payload.action === 'assigned' || payload.action === 'unassigned') && isBotLogin(assignee, options.botLogin))
      return { ...base, ...extra, action: payload.action === 'assigned' ? 'start' : 'stop', how: 'assigned' };
    if ((payload.action === 'labeled' || payload.action === 'unlabeled') && typeof label === 'string' && label)
      return { ...base, ...extra, action: payload.action === 'labeled' ? 'start' : 'stop', how: 'labeled', label };
    // An issue closed as not planned needs no more work: its units at work stop. Closed as completed
    // is also what merging a `Fixes #n` pull request does, so it stops nothing (the unit settles on its PR's own events).
    if (payload.action === 'closed' && issue.state_reason === 'not_planned') return { ...base, ...extra, action: 'stop', how: 'closed' };
  }
  return undefined;
}

/** `stop`, `stop: superseded by #9`: a mention that asks the conversation's running work to stop (the reason, maybe empty); else undefined. */
export function stopCommand(text: string): string | undefined {
  const match = /^stop\b[\s:,.!-]*([\s\S]*)$/i.exec(text.trim());
  return match ? match[1].trim() : undefined;
}

/** The App's login, with or without GitHub's `[bot]` suffix, in any case. */
export function isBotLogin(login: string, botLogin: string): boolean {
  const bare = (name: string) => name.replace(/\[bot\]$/, '').toLowerCase();
  return login !== '' && bare(login) === bare(botLogin);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
