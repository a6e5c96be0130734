/**
 * The contract of `threadWorkflow`, the entity that owns one conversation: its input and
 * state, the `message` signal front ends signal-with-start it with, and the `state` query
 * (`stop`, passed on to its running run, is in common.ts).
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { REPLY_TARGET_SHAPE, REQUESTER_SHAPE, type ReplyTarget, type Requester } from './common';
import { boolean, decimal, integer, listOf, nonBlank, object, oneOf, optional, text, type Shape } from './shape';
import type { UncertainWrite } from './resend';
import type { RunRecord } from './run';
import { RUN_OUTCOMES, type RunOutcome } from './run-status';
import type { EarlierReview } from './unit';
import type { PlanUnitSpec } from './plan';
import { workflowType } from './workflow-type';

/** One incoming message, normalised by a front end. */
export interface ThreadMessage {
  /** Dedupe key: Slack event id, GitHub delivery id, API request id. A repeat does nothing. */
  messageId: string;
  text: string;
  requester: Requester;
  /** The channel it came from (Slack channel id), for channel bounds and grants. */
  channelId?: string;
  /** True when the person addressed the running run (a thread reply during a run): it steers it. */
  addressedToRun?: boolean;
  /** A self-serve MCP caller (also `requester.selfServe`, which follows the request into its runs). */
  selfServe?: boolean;
  /**
   * The agent this surface implies when the message names none and the thread has no sticky
   * agent (a verified private Slack DM implies `orchestrator`). Access is still checked.
   */
  defaultAgent?: string;
  /** Where this message's run reports, when it differs from the thread's. */
  replyTarget?: ReplyTarget;
  /**
   * An automatic review of the conversation's pull request (the GitHub door sends it when the
   * repository's review triggers ask): admitted as `review` for the actor, a push's debounced.
   */
  review?: AutoReview;
  /**
   * A ship unit for the conversation's issue (it was assigned to the bot, or labelled): the thread
   * reads the issue's title, body and comments into the request before deciding.
   */
  seed?: IssueSeed;
}

/** What asked for an automatic review, and of which head. */
export interface AutoReview {
  trigger: 'opened' | 'ready_for_review' | 'review_requested' | 'push';
  headSha?: string;
  /** A push waits this long for the next one before the review starts (default 60). */
  debounceSeconds?: number;
}

/** The issue a ship unit is asked for, and how. */
export interface IssueSeed {
  issue: number;
  trigger: 'assigned' | 'labeled';
}

export const AUTO_REVIEW_TRIGGERS = ['opened', 'ready_for_review', 'review_requested', 'push'] as const;

/** The shape the thread checks a `message` signal and a `sendMessage` update against. */
export const THREAD_MESSAGE_SHAPE: Shape = object({
  messageId: nonBlank(),
  text: text(),
  requester: REQUESTER_SHAPE,
  channelId: optional(text()),
  addressedToRun: optional(boolean()),
  selfServe: optional(boolean()),
  defaultAgent: optional(text()),
  replyTarget: optional(REPLY_TARGET_SHAPE),
  review: optional(object({ trigger: oneOf(AUTO_REVIEW_TRIGGERS), headSha: optional(text()), debounceSeconds: optional(integer(0)) })),
  seed: optional(object({ issue: integer(1), trigger: oneOf(['assigned', 'labeled']) })),
});

export interface ThreadInput {
  threadId: string;
  replyTarget: ReplyTarget;
  carry?: ThreadCarry;
  /**
   * How soon and how often the thread looks at its current run for a workflow task that keeps
   * failing (workflows/thread/run-watch.ts; defaults: after 1 minute, then every 5). Tests shorten it.
   */
  runWatch?: { firstMs?: number; everyMs?: number };
}

/** One finished exchange a follow-up sees. */
export interface SavedExchange {
  request: string;
  answer: string;
  agent: string;
  outcome: RunOutcome;
}

/** What happened to one message, for the CLI and API to follow. */
export interface MessageOutcome {
  messageId: string;
  /** `answered`: the thread answered itself, without a run (a `/board` command, `/subconscious run`). */
  kind: 'run' | 'unit' | 'plan' | 'refused' | 'steered' | 'duplicate' | 'queued' | 'answered';
  runId?: string;
  /** The ship unit started (or steered) for a code-change request. */
  unitId?: string;
  /** The plan started for a `plan` message. */
  planId?: string;
  agent?: string;
  /** The plain answer given instead of a run (a refusal, a unit's start, a board command's outcome). */
  reply?: string;
  /**
   * Why a message was refused (or its steer was not sent), as a stable code from the admission's one list
   * (contracts/refusals.ts): an access code, `model_not_allowed`, `actor_permission`, `not_requester`, `request_missing`,
   * `repo_missing`, `needs_pull_request`, `sandbox_unavailable`, the repository vet's `repo_not_visible` /
   * `repo_unverified`, a spend cap's code, or `message_invalid` (a malformed message queued before messages were checked whole).
   */
  code?: string;
}

export interface ThreadCarry {
  stickyAgent?: string;
  runCount: number;
  saved: SavedExchange[];
  queue: ThreadMessage[];
  seen: string[];
  outcomes: MessageOutcome[];
  /** The host queue of the thread's workspace, from its last run that had one. */
  workspaceHost?: string;
  /** Replies (a run's answer among them) that ended `unconfirmed`; absent: none. */
  uncertain?: UncertainWrite[];
  /** The conversation's pull request reviews: commits reviewed, the last review's findings, a review waiting its turn (absent: none yet). */
  reviews?: ThreadReviews;
  /** The last plan a run drafted here (`plan_draft`), waiting for its requester's `plan confirm` (absent: none). */
  planDraft?: PlanDraft;
}

/** A plan an orchestrator or conductor run drafted in a conversation, for the person who asked to confirm. */
export interface PlanDraft {
  plan: { name: string; repo: string; units: PlanUnitSpec[]; mergeAuthority?: boolean; model?: string };
  /** Who asked for the run that drafted it: only they confirm it. */
  requester: string;
  /** The run that drafted it. */
  runId: string;
}

/** What a PR conversation remembers of its reviews (thread/auto-review.ts). */
export interface ThreadReviews {
  /** Commits a review was posted (or may have been) for: each is reviewed once (the last 50). */
  reviewed: string[];
  /** The last posted review: the next says which of its findings a push resolved. */
  earlier?: EarlierReview;
  /** An automatic review waiting for its debounce (or for the run before it) to end. */
  pending?: { message: ThreadMessage; dueAt: number };
}

/** The `state` query's answer. */
export interface ThreadState {
  threadId: string;
  stickyAgent?: string;
  currentRunId?: string;
  queued: number;
  runCount: number;
  saved: number;
  outcomes: MessageOutcome[];
  /** Replies (a run's answer is `<run id>/answer`) whose delivery could not be confirmed, with any resend. */
  unconfirmed?: UncertainWrite[];
  /** An automatic review waiting for its debounce or its turn: what asked for it, and when it is due (ISO). */
  pendingReview?: { trigger: AutoReview['trigger']; dueAt: string };
}

/** One incoming message; sent with signal-with-start, so the first one starts the thread. */
export const messageSignal = defineSignal<[ThreadMessage]>('message');
export const threadStateQuery = defineQuery<ThreadState>('state');
/**
 * One incoming message, answered with the thread's decision once it has made it: what the CLI,
 * the HTTP API and MCP send (update-with-start, update id = message id), so they learn the run id
 * without polling the `state` query. A repeated message id answers the earlier decision (or
 * `duplicate` once that has been forgotten). A message still queued when the thread
 * continues-as-new or ends is answered `queued`; its decision then shows in the `state` query.
 */
export const sendMessageUpdate = defineUpdate<MessageOutcome, [ThreadMessage]>('sendMessage');

/**
 * A run's end, as the run tells its thread (`runEnded`) when the thread started it by a local
 * activity rather than as a child: its record, or why it has none. The thread's run watch covers
 * a run that ends without saying so (terminated, timed out), workflows/thread/await-run.ts.
 */
export interface RunEnded {
  runId: string;
  record?: RunRecord;
  /** The run's workflow failed, so it has no record: the failure in words. */
  failed?: string;
  /** Closed from outside (`temporal workflow terminate`, the Web UI): no code of the run ran. Found by the run watch. */
  terminated?: boolean;
}

/**
 * The shape a `runEnded` signal is checked against: the record's fields the thread reads (its
 * answer, outcome, workspace host, unconfirmed writes and posted review; who asked and who
 * stopped it, its agent, tool calls and cost), so no signal sent by hand can fail the thread's
 * task; fields the thread never reads are not checked.
 */
export const RUN_ENDED_SHAPE: Shape = object({
  runId: nonBlank(),
  record: optional(
    object({
      runId: text(),
      outcome: oneOf(RUN_OUTCOMES),
      finalText: text(),
      endedBy: optional(text()),
      requester: object({ id: text() }),
      profile: object({ agent: text() }),
      toolCalls: listOf(object({})),
      stop: optional(object({ by: optional(text()), reason: optional(text()) })),
      cost: object({ usd: decimal() }),
      workspaceHost: optional(nonBlank()),
      unconfirmed: optional(
        listOf(
          object({
            effectKey: nonBlank(),
            kind: text(),
            target: text(),
            text: text(),
            reason: text(),
            at: integer(),
            call: object({ activity: text(), input: object({}) }),
          }),
        ),
      ),
      reviewed: optional(object({ commitSha: nonBlank(), status: oneOf(['confirmed', 'unconfirmed', 'refused']) })),
      submissions: object({
        submit_review: optional(object({ findings: optional(listOf(object({ title: text(), scenario: text(), impact: text() }))) })),
      }),
    }),
  ),
  failed: optional(text()),
  terminated: optional(boolean()),
});

/** Sent by a run its thread started by a local activity (`RunInput.reportEnd`), once, as its last step. */
export const runEndedSignal = defineSignal<[RunEnded]>('runEnded');

export type ThreadWorkflow = (input: ThreadInput) => Promise<void>;
/** Signal-with-started on `thread:slack:…`, `thread:gh:…`, `thread:cli:…` or `thread:api:…`. */
export const threadWorkflowType = workflowType<ThreadWorkflow>('threadWorkflow');
