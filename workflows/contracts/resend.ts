/**
 * Writes that ended `unconfirmed` and the operator's deliberate resend of one. An at-most-once
 * write (a comment, a review, a new PR, a reply in Slack or on GitHub) whose result was lost
 * and whose marker was not found is never sent again on its own: the workflow lists it here,
 * says so in the conversation, and waits for a person to decide. `resend` (an update on a
 * running unit or thread; `resendWorkflow` for one that has closed) sends it once more under
 * a new effect key and records who decided and when.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { CreateIssueInput, OpenPullRequestInput, PostCommentInput, PostReviewInput, ReplyToReviewCommentInput } from './github';
import type { ReplyInput, StatusCardInput } from './status';
import { nonBlank, object, optional, text, type Shape } from './shape';
import { workflowType } from './workflow-type';

/** The write as it was called, so a resend repeats exactly it (with a new effect key). */
export type UncertainCall =
  | { activity: 'postComment'; input: PostCommentInput }
  | { activity: 'postReview'; input: PostReviewInput }
  | { activity: 'openOrUpdatePullRequest'; input: OpenPullRequestInput }
  | { activity: 'deliverReply'; input: ReplyInput }
  /** An issue a run's model opened with its own tool. */
  | { activity: 'createIssue'; input: CreateIssueInput }
  /** A run's status card whose last update could not be confirmed (earlier ones are repaired by the next update). */
  | { activity: 'statusCard'; input: StatusCardInput }
  /** A unit's reply in a finding's review thread. */
  | { activity: 'replyToReviewComment'; input: ReplyToReviewCommentInput };

export type UncertainKind = 'comment' | 'review' | 'pull_request' | 'reply' | 'issue' | 'card';

/** An operator's resend of an unconfirmed write. */
export interface ResendDecision {
  /** Who decided (the `by` of the request). */
  by: string;
  /** When, epoch milliseconds (workflow time). */
  at: number;
  reason?: string;
  /** The key the new copy carries: `<old key>/resend-<n>`. */
  effectKey: string;
  /** The new copy's outcome: `confirmed`, `refused`, `unconfirmed` (then it is listed again), … */
  status: string;
  detail?: string;
}

/** One write whose delivery could not be confirmed. */
export interface UncertainWrite {
  kind: UncertainKind;
  effectKey: string;
  /** Where it was going, in words: `acme/app#7`, `slack C1/1700.1`. */
  target: string;
  /** The text that may not have arrived, bounded (the full text is in `call`). */
  text: string;
  /** Why it is unconfirmed, from the activity. */
  reason: string;
  at: number;
  call: UncertainCall;
  resent?: ResendDecision;
}

/** The `resend` update's input: `{"effectKey": "unit:…/report-comment", "by": "alice", "reason"?: "…"}`. */
export interface ResendInput {
  effectKey: string;
  by: string;
  reason?: string;
}

/** The shape a `resend` update is checked against before the write is looked up. */
export const RESEND_INPUT_SHAPE: Shape = object({ effectKey: nonBlank(), by: nonBlank(), reason: optional(text()) });

/** `resendWorkflow`'s input: the closed workflow that lists the write, and the resend request. */
export interface ResendWorkflowInput extends ResendInput {
  workflowId: string;
}

/** The answer of a resend: the write as it stands now, its decision included. */
export interface ResendRecord {
  workflowId: string;
  write: UncertainWrite;
  decision: ResendDecision;
}

/** The effect key a resend is sent under: `<key>/resend-1`, and `<key>/resend-2` for a resend of that one. */
export function resendKey(effectKey: string): string {
  const earlier = /^(.*)\/resend-(\d+)$/.exec(effectKey);
  return earlier ? `${earlier[1]}/resend-${Number(earlier[2]) + 1}` : `${effectKey}/resend-1`;
}

/** Where a workflow's unconfirmed writes are listed, and whether it can still take the `resend` update. */
export interface UncertainWritesFound {
  /** The workflow that lists them: a run's answer is delivered, and listed, by its thread. */
  workflowId: string;
  running: boolean;
  writes: UncertainWrite[];
}

/** Resends one unconfirmed write of a running unit, thread or plan; refused for a confirmed or unknown key (`resend_refused`). */
export const resendUpdate = defineUpdate<ResendRecord, [ResendInput]>('resend');
/** The unconfirmed writes of a running unit, thread, plan or run, with any resend decisions. */
export const uncertainWritesQuery = defineQuery<UncertainWrite[]>('uncertainWrites');

export type ResendWorkflow = (input: ResendWorkflowInput) => Promise<ResendRecord>;
/** For a workflow that has closed: started on `resend:<new effect key>`, so one effect is resent once this way. */
export const resendWorkflowType = workflowType<ResendWorkflow>('resendWorkflow');
