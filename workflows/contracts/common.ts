/**
 * What every conversation-facing workflow shares: who asked, where answers go, and the
 * `steer` and `stop` messages a run and a unit both take (a thread and a plan take `stop`).
 * One definition per wire name, so a client never names a message by string.
 */
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import { boolean, integer, listOf, nonBlank, object, optional, text, variants, type Shape } from './shape';

/** Where a run's card and answer go. */
export type ReplyTarget =
  | { kind: 'slack'; team: string; channel: string; threadTs: string }
  | {
      kind: 'github';
      repo: string;
      /** The PR or issue number (issues and PRs share one numbering). */
      pullRequest: number;
      /** The comment that asked, for the accepted/refused reaction; `reviewComment` for a PR review comment. */
      commentId?: number;
      reviewComment?: boolean;
      /** A plain issue, not a pull request: a change asked here gets a new PR that fixes it (absent: a PR, or not known). */
      issue?: boolean;
    }
  | { kind: 'api' }
  | { kind: 'cli' };

/** The shape of a `ReplyTarget`, checked wherever one arrives in a message. */
export const REPLY_TARGET_SHAPE: Shape = variants('kind', {
  slack: { team: nonBlank(), channel: nonBlank(), threadTs: nonBlank() },
  github: { repo: nonBlank(), pullRequest: integer(1), commentId: optional(integer(1)), reviewComment: optional(boolean()) },
  api: {},
  cli: {},
});

export const REQUESTER_SURFACES = ['slack', 'github', 'http', 'mcp', 'cli'] as const;

export interface Requester {
  id: string;
  surface: (typeof REQUESTER_SURFACES)[number];
  displayName?: string;
  /** A self-serve API/MCP token: it and every child run it delegates to stay away from shells. */
  selfServe?: boolean;
  /** The agents the caller's API token allows (its `agents`), with the config key; absent: no narrowing. */
  grant?: { agents: string[]; rule: string };
  /**
   * A GitHub actor's role on the repository, as the GitHub door read it from GitHub's collaborator
   * permission API (never from `author_association`); the admission checks it per agent.
   */
  githubRole?: 'none' | 'read' | 'triage' | 'write' | 'maintain' | 'admin';
}

/** The shape of a `Requester`. */
export const REQUESTER_SHAPE: Shape = object({
  id: nonBlank(),
  surface: { kind: 'literal', values: REQUESTER_SURFACES },
  displayName: optional(text()),
  selfServe: optional(boolean()),
  grant: optional(object({ agents: listOf(text()), rule: text() })),
});

/** The `steer` signal and update: `{"text": "...", "by"?: "..."}`. */
export interface SteerInput {
  text: string;
  by?: string;
}

/**
 * The longest steer any workflow takes, in characters (the HTTP API's bound on a message): a
 * steer joins the model's conversation whole, before every later turn.
 */
export const MAX_STEER_CHARS = 20_000;

/** The shape every workflow checks a `steer` against (signal and update alike). */
export const STEER_INPUT_SHAPE: Shape = object({ text: nonBlank(MAX_STEER_CHARS), by: optional(text()) });

/** The `stop` signal: `{"reason"?: "...", "by"?: "..."}`, or no input at all. */
export interface StopInput {
  reason?: string;
  by?: string;
}

/** The shape every workflow checks a `stop` against (it may also come with no input). */
export const STOP_INPUT_SHAPE: Shape = object({ reason: optional(text()), by: optional(text()) });

/** The `steer` update's answer: a run adds how many steers wait for its next turn; a unit only accepts. */
export interface SteerAccepted {
  accepted: true;
  pending?: number;
}

/** A new instruction for a run (next model turn) or a unit (next coding round). */
export const steerSignal = defineSignal<[SteerInput]>('steer');
/** As `steerSignal`, validated: empty text or a finished workflow is refused (`steer_rejected`). */
export const steerUpdate = defineUpdate<SteerAccepted, [SteerInput]>('steer');
/** Stops a run or unit (it settles `stopped`), a thread's running run, or a plan and its units. */
export const stopSignal = defineSignal<[StopInput]>('stop');
