import type { AgentSetup } from '../../activities/agents/agent-setup';
import type { ChatMessage } from '../contracts/model';
import type { MessageOutcome, PlanDraft, SavedExchange, StopInput, ThreadCarry, ThreadMessage, UncertainWrite } from '../contracts';
import { ReviewMemory } from './auto-review';

/** Exchanges a follow-up sees; older ones drop off. */
export const SAVED_EXCHANGES = 10;
/** Message ids remembered for dedupe (Slack retries, webhook redeliveries). */
export const SEEN_MESSAGE_IDS = 500;
export const OUTCOMES_KEPT = 50;
/** Continue-as-new between runs once history passes this many events (or Temporal suggests it). */
export const THREAD_HISTORY_LIMIT = 5_000;

/** Who asked for the current run and what it runs: a reply that steers it is admitted against them. */
export interface CurrentRun {
  requester: string;
  agent: string;
  repo?: string;
}

/**
 * Everything one conversation keeps (plain class, no Temporal calls): what it carries across
 * continue-as-new (the sticky agent, the saved exchanges, the queue, the ids seen, the outcomes,
 * the workspace's host, the unconfirmed writes, its reviews, a drafted plan) and what lives only
 * in one run of the workflow (the current run, the message being decided, closing, cancelled).
 * The thread's handlers and its loop read and change it; the `state` query and the Web UI's
 * details are views of it.
 */
export class ThreadMemory {
  stickyAgent?: string;
  runCount: number;
  readonly saved: SavedExchange[];
  readonly queue: ThreadMessage[];
  readonly seen: string[];
  readonly outcomes: MessageOutcome[];
  // The host queue of the thread's workspace: the next run goes on where the files are (or is told they were lost).
  workspaceHost?: string;
  readonly uncertain: UncertainWrite[];
  // The conversation's pull request reviews: reviewed commits, the last findings, an automatic review waiting its turn.
  readonly reviews: ReviewMemory;
  // The last plan a run drafted here, until its requester confirms it (`plan confirm`).
  planDraft?: PlanDraft;
  currentRunId?: string;
  currentRun?: CurrentRun;
  // The agent setup the thread decided its last message with: the admission's facts for a steer.
  facts?: AgentSetup;
  // The message taken from the queue and not yet decided (its setup and vetting run meanwhile).
  deciding?: string;
  // A stop for the current run, kept too in case the run is still starting and the signal cannot reach it yet.
  pendingStop?: StopInput;
  // Set just before the thread continues-as-new or ends: a `sendMessage` update still waiting
  // for its message's decision is answered `queued` then (the decision comes in the next run).
  closing = false;
  cancelled = false;

  constructor(
    readonly threadId: string,
    carry?: ThreadCarry,
  ) {
    this.stickyAgent = carry?.stickyAgent;
    this.runCount = carry?.runCount ?? 0;
    this.saved = carry?.saved ?? [];
    this.queue = carry?.queue ?? [];
    this.seen = carry?.seen ?? [];
    this.outcomes = carry?.outcomes ?? [];
    this.workspaceHost = carry?.workspaceHost;
    this.reviews = new ReviewMemory(carry?.reviews ?? { reviewed: [] });
    this.planDraft = carry?.planDraft;
    this.uncertain = carry?.uncertain ?? [];
  }

  /** Keeps a message's outcome (the last OUTCOMES_KEPT); the message is no longer being decided. */
  remember(outcome: MessageOutcome): void {
    if (outcome.messageId === this.deciding) this.deciding = undefined;
    this.outcomes.push(outcome);
    this.outcomes.splice(0, Math.max(0, this.outcomes.length - OUTCOMES_KEPT));
  }

  outcomeOf(messageId: string): MessageOutcome | undefined {
    return this.outcomes.find((entry) => entry.messageId === messageId);
  }

  /** The message is queued or being decided: its outcome is still to come. */
  pending(messageId: string): boolean {
    return this.deciding === messageId || this.queue.some((entry) => entry.messageId === messageId);
  }

  /** Notes a message id (the last SEEN_MESSAGE_IDS); false for one seen before (a retry, a redelivery). */
  see(messageId: string): boolean {
    if (this.seen.includes(messageId)) return false;
    this.seen.push(messageId);
    this.seen.splice(0, Math.max(0, this.seen.length - SEEN_MESSAGE_IDS));
    return true;
  }

  /** The loop may go on: a message is queued, the thread was cancelled, or a newer review is held than `held`. */
  woken(held: number): boolean {
    return this.queue.length > 0 || this.cancelled || this.reviews.version !== held;
  }

  /** Something is to be decided now: a queued message, or an automatic review whose wait is over. */
  ready(now: number): boolean {
    return this.queue.length > 0 || this.reviews.waitMs(now) === 0;
  }

  /** The next message to decide: the queue's first, else the automatic review that is due. */
  next(): ThreadMessage {
    return this.queue.length > 0 ? this.queue.shift()! : this.reviews.take()!;
  }

  /** Remembers one exchange for the follow-ups (the last SAVED_EXCHANGES). */
  save(exchange: SavedExchange): void {
    this.saved.push(exchange);
    this.saved.splice(0, Math.max(0, this.saved.length - SAVED_EXCHANGES));
  }

  /** The saved exchanges as the next run's context. */
  savedContext(): ChatMessage[] {
    return this.saved.flatMap((exchange): ChatMessage[] => [
      { role: 'user', text: exchange.request },
      { role: 'assistant', text: `(${exchange.agent}, ${exchange.outcome}) ${exchange.answer}`, toolCalls: [] },
    ]);
  }

  /** Between runs, the thread continues-as-new once Temporal suggests it or its history is long (not once cancelled). */
  continueDue(info: { continueAsNewSuggested: boolean; historyLength: number }): boolean {
    return !this.cancelled && (info.continueAsNewSuggested || info.historyLength > THREAD_HISTORY_LIMIT);
  }

  /** What the next run of the workflow starts from. */
  carry(): ThreadCarry {
    return {
      ...(this.stickyAgent ? { stickyAgent: this.stickyAgent } : {}),
      ...(this.workspaceHost ? { workspaceHost: this.workspaceHost } : {}),
      runCount: this.runCount,
      saved: this.saved,
      queue: this.queue,
      seen: this.seen,
      outcomes: this.outcomes,
      ...(this.uncertain.length ? { uncertain: this.uncertain } : {}),
      ...(this.reviews.reviews.reviewed.length || this.reviews.reviews.pending ? { reviews: this.reviews.reviews } : {}),
      ...(this.planDraft ? { planDraft: this.planDraft } : {}),
    };
  }
}
