import type { EffectResult as GitHubResult } from '../contracts/github';
import type { EffectResult as DeliveryResult } from '../contracts/status';
import type { GitHubWriteActivities, StatusActivities } from '../activity-proxies';
import {
  failure,
  problemWith,
  RESEND_INPUT_SHAPE,
  resendKey,
  type ReplyTarget,
  type ResendDecision,
  type ResendInput,
  type ResendRecord,
  type UncertainCall,
  type UncertainWrite,
} from '../contracts';

/** How much of an unconfirmed text the list shows (the whole text stays in the write's call). */
export const TEXT_SHOWN = 2_000;
/** Unconfirmed writes a long-lived workflow keeps listed; older ones drop off. */
export const UNCERTAIN_KEPT = 20;
/** Confirmed keys remembered, so a resend of one is refused as confirmed rather than unknown. */
const CONFIRMED_KEPT = 100;

/** The at-most-once writes a workflow makes that can end `unconfirmed`. */
export interface UncertainActivities {
  githubWrites: Pick<
    GitHubWriteActivities,
    'postComment' | 'postReview' | 'openOrUpdatePullRequest' | 'createIssue' | 'replyToReviewComment'
  >;
  status: Pick<StatusActivities, 'deliverReply' | 'statusCard'>;
}

export interface UncertainPorts {
  now(): number;
  /** The workflow that owns the list, for messages and the resend hint. */
  workflowId: string;
  /** Says "could not confirm delivery of …" where people look (a thread reply); absent: say nothing. */
  notify?(write: UncertainWrite, notice: string): Promise<void>;
}

/**
 * The unconfirmed writes of one workflow: the activities it calls are wrapped so each
 * `unconfirmed` outcome is listed (kind, target, key, text, reason) and announced, and an
 * operator's `resend` of one is validated, sent once under a new key, and recorded with who
 * decided and when. Plain class: the unit, the thread and `resendWorkflow` share it.
 */
export class UncertainWrites {
  private readonly confirmed: string[] = [];

  constructor(
    readonly list: UncertainWrite[],
    private readonly activities: UncertainActivities,
    private readonly ports: UncertainPorts,
  ) {}

  /** The same activities, each noting an `unconfirmed` outcome here. */
  recording(): UncertainActivities {
    const { githubWrites, status } = this.activities;
    return {
      githubWrites: {
        postComment: async (input) => this.seen({ activity: 'postComment', input }, await githubWrites.postComment(input)),
        postReview: async (input) => this.seen({ activity: 'postReview', input }, await githubWrites.postReview(input)),
        openOrUpdatePullRequest: async (input) =>
          this.seen({ activity: 'openOrUpdatePullRequest', input }, await githubWrites.openOrUpdatePullRequest(input)),
        createIssue: async (input) => this.seen({ activity: 'createIssue', input }, await githubWrites.createIssue(input)),
        replyToReviewComment: async (input) =>
          this.seen({ activity: 'replyToReviewComment', input }, await githubWrites.replyToReviewComment(input)),
      },
      status: {
        deliverReply: async (input) => this.seen({ activity: 'deliverReply', input }, await status.deliverReply(input)),
        statusCard: async (input) => this.seen({ activity: 'statusCard', input }, await status.statusCard(input)),
      },
    };
  }

  /** Notes one write's outcome made elsewhere (a status card's last update): listed and announced when `unconfirmed`. */
  async note(call: UncertainCall, result: GitHubResult | DeliveryResult): Promise<void> {
    await this.seen(call, result);
  }

  /** Writes another workflow listed (a run's, at its end) join this list, so they are resent from here. */
  adopt(writes: UncertainWrite[] | undefined): void {
    for (const write of writes ?? []) if (!this.list.some((w) => w.effectKey === write.effectKey)) this.list.push(write);
    this.trim();
  }

  /** Refuses a resend that is not of a listed, not yet resent write; answers the write otherwise. */
  validate(input: ResendInput): UncertainWrite {
    const { workflowId } = this.ports;
    const problem = problemWith(RESEND_INPUT_SHAPE, input);
    if (problem) throw failure('resend_refused', `resend: ${problem} (\`by\` says who decided to send it again)`);
    const write = this.list.find((w) => w.effectKey === input.effectKey);
    if (!write) {
      const listed = this.list.filter((w) => !w.resent).map((w) => w.effectKey);
      const why = this.confirmed.includes(input.effectKey)
        ? 'it was confirmed (it arrived), and a confirmed write is never sent twice'
        : 'it is not an unconfirmed write of this workflow';
      throw failure(
        'resend_refused',
        `cannot resend ${input.effectKey} of ${workflowId}: ${why}. Unconfirmed writes: ${listed.length ? listed.join(', ') : 'none'}.`,
      );
    }
    if (write.resent) {
      const { by, at, effectKey, status } = write.resent;
      throw failure(
        'resend_refused',
        `cannot resend ${input.effectKey} of ${workflowId}: ${by} already resent it at ${new Date(at).toISOString()} as ${effectKey} (${status})`,
      );
    }
    return write;
  }

  /** Sends the write once more under `<key>/resend-<n>`, recording the decision first (a second request is refused meanwhile). */
  async resend(input: ResendInput): Promise<ResendRecord> {
    const write = this.validate(input);
    const decision: ResendDecision = {
      by: input.by.trim(),
      at: this.ports.now(),
      ...(input.reason ? { reason: input.reason } : {}),
      effectKey: resendKey(write.effectKey),
      status: 'sending',
    };
    write.resent = decision;
    const result = await this.send(withKey(write.call, decision.effectKey));
    decision.status = result.status;
    if (result.reason) decision.detail = result.reason;
    return { workflowId: this.ports.workflowId, write, decision };
  }

  /** Lists an unconfirmed outcome (and says so); remembers a confirmed one. */
  private async seen<R extends GitHubResult | DeliveryResult>(call: UncertainCall, result: R): Promise<R> {
    const key = call.input.effectKey;
    if (result.status === 'confirmed') {
      this.confirmed.push(key);
      this.confirmed.splice(0, Math.max(0, this.confirmed.length - CONFIRMED_KEPT));
    }
    if (result.status !== 'unconfirmed' || this.list.some((w) => w.effectKey === key)) return result;
    const write: UncertainWrite = {
      kind: KINDS[call.activity],
      effectKey: key,
      target: targetOf(call),
      text: clip(textOf(call)),
      reason: result.reason ?? 'its result was lost and no trace of it was found',
      at: this.ports.now(),
      call,
    };
    this.list.push(write);
    this.trim();
    await this.ports.notify?.(write, noticeFor(write, this.ports.workflowId));
    return result;
  }

  /** The oldest decided ones go first; undecided ones are kept as long as there is room. */
  private trim(): void {
    while (this.list.length > UNCERTAIN_KEPT)
      this.list.splice(
        Math.max(
          0,
          this.list.findIndex((w) => w.resent),
        ),
        1,
      );
  }

  private async send(call: UncertainCall): Promise<GitHubResult | DeliveryResult> {
    const activities = this.recording();
    switch (call.activity) {
      case 'postComment':
        return activities.githubWrites.postComment(call.input);
      case 'postReview':
        return activities.githubWrites.postReview(call.input);
      case 'openOrUpdatePullRequest':
        return activities.githubWrites.openOrUpdatePullRequest(call.input);
      case 'deliverReply':
        return activities.status.deliverReply(call.input);
      case 'createIssue':
        return activities.githubWrites.createIssue(call.input);
      case 'replyToReviewComment':
        return activities.githubWrites.replyToReviewComment(call.input);
      case 'statusCard':
        return activities.status.statusCard(call.input);
    }
  }
}

const KINDS = {
  postComment: 'comment',
  postReview: 'review',
  openOrUpdatePullRequest: 'pull_request',
  deliverReply: 'reply',
  createIssue: 'issue',
  statusCard: 'card',
  replyToReviewComment: 'comment',
} as const;

function withKey(call: UncertainCall, effectKey: string): UncertainCall {
  return { ...call, input: { ...call.input, effectKey } } as UncertainCall;
}

function clip(text: string): string {
  return text.length > TEXT_SHOWN ? `${text.slice(0, TEXT_SHOWN)}… (${text.length - TEXT_SHOWN} more characters)` : text;
}

function textOf(call: UncertainCall): string {
  if (call.activity === 'deliverReply') return call.input.text;
  if (call.activity === 'openOrUpdatePullRequest' || call.activity === 'createIssue') return `${call.input.title}\n\n${call.input.body}`;
  if (call.activity === 'statusCard') {
    const { status, answer } = call.input;
    return [`${status.agent} · ${status.outcome ?? status.phase}`, answer ?? status.statusText ?? ''].filter(Boolean).join('\n');
  }
  return call.input.body;
}

export function replyTargetText(target: ReplyTarget): string {
  if (target.kind === 'slack') return `slack ${target.channel}/${target.threadTs}`;
  if (target.kind === 'github') return `${target.repo}#${target.pullRequest}`;
  return target.kind;
}

function targetOf(call: UncertainCall): string {
  if (call.activity === 'deliverReply' || call.activity === 'statusCard') return replyTargetText(call.input.replyTarget);
  if (call.activity === 'openOrUpdatePullRequest') return `${call.input.repo} ${call.input.head} → ${call.input.base}`;
  if (call.activity === 'createIssue') return call.input.repo;
  return `${call.input.repo}#${call.input.number}`;
}

/** "the review on acme/app#7", for the notice and the CLI. */
export function describeWrite(write: Pick<UncertainWrite, 'kind' | 'target'>): string {
  if (write.kind === 'pull_request') return `the pull request ${write.target}`;
  if (write.kind === 'reply') return `the reply to ${write.target}`;
  if (write.kind === 'issue') return `the new issue in ${write.target}`;
  if (write.kind === 'card') return `the status card in ${write.target}`;
  return `the ${write.kind} on ${write.target}`;
}

export function noticeFor(write: UncertainWrite, workflowId: string): string {
  return [
    `Could not confirm delivery of ${describeWrite(write)} (effect ${write.effectKey}): ${write.reason}.`,
    `It was not sent again, so it may be missing. Its text is in the record; to send it once more: \`switchboard resend ${workflowId} ${write.effectKey}\`.`,
  ].join('\n');
}
