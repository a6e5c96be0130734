/**
 * The contract of `boardWorkflow`, a team's memory for one repository (`board:<owner>/<repo>`) or
 * one Slack channel (`board:slack:<team>:<channel>`): short entries with their provenance and a
 * state, changed only through the validated `boardChange` update, read through the `board` query,
 * and consolidated by `rem-agent` runs the `consolidate` signal asks for (docs/board.md).
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { REPLY_TARGET_SHAPE, REQUESTER_SHAPE, type ReplyTarget, type Requester } from './common';
import { boolean, listOf, nonBlank, object, oneOf, optional, text, variants, type Fields, type Shape } from './shape';
import { workflowType } from './workflow-type';

/** What an entry says: a fact, a command that works, a convention, a decision (with its reason), a pitfall. */
export const BOARD_ENTRY_KINDS = ['fact', 'command', 'convention', 'decision', 'pitfall'] as const;
export type BoardEntryKind = (typeof BOARD_ENTRY_KINDS)[number];

/** `proposed`: waits for a person; `kept`: read into every run; `retired`: never read, and never comes back without a person. */
export type BoardEntryState = 'proposed' | 'kept' | 'retired';

/** Who changes the board: a person (through a door the admission let them through), or a rem-agent run. */
export interface BoardActor {
  kind: 'person' | 'agent';
  /** The person's id (`slack:U…`, `github:alice`, `cli`), or the rem-agent run's id. */
  id: string;
  /**
   * Whether this actor's changes are kept at once: a keeper (the admission's `admitBoard` said so),
   * or a rem-agent run consolidating work a keeper started. Otherwise an addition stays `proposed`.
   */
  keeps: boolean;
  /** An agent's: the person whose work it consolidates. */
  onBehalfOf?: string;
}

/** One entry of a board. */
export interface BoardEntry {
  /** `b<n>`, never reused on this board. */
  id: string;
  text: string;
  kind: BoardEntryKind;
  state: BoardEntryState;
  /** Who put it there: a person, or a rem-agent run (with the person whose work it read). */
  source: { via: 'person' | 'agent'; by: string; runId?: string; onBehalfOf?: string };
  createdAt: number;
  /** Last confirmed by a person or a run (ms). */
  confirmedAt: number;
  /** The entry a proposed replacement would retire once kept. */
  replaces?: string;
  /** Who kept or retired it last, and when. */
  decided?: { by: string; at: number; reason?: string };
  /** A run suggested retiring it (from work that may not retire): a person decides. */
  flagged?: { by: string; at: number; reason: string };
}

/** The `boardChange` update's input. `key` makes a retried change answer its first result. */
export type BoardChange = { key?: string; actor: BoardActor } & (
  | { action: 'add'; text: string; kind: BoardEntryKind }
  | { action: 'replace'; entryId: string; text: string; kind?: BoardEntryKind }
  | { action: 'confirm'; entryId: string }
  | { action: 'keep'; entryId: string }
  | { action: 'retire'; entryId: string; reason?: string }
);

export type BoardChangeAction = BoardChange['action'];

/** What a change did, in words the tool result, the CLI and a reply show. */
export interface BoardChangeResult {
  effect: 'added' | 'proposed' | 'replaced' | 'confirmed' | 'kept' | 'retired' | 'flagged' | 'unchanged';
  entry: BoardEntry;
  message: string;
}

const ACTOR_SHAPE: Shape = object({
  kind: oneOf(['person', 'agent']),
  id: nonBlank(),
  keeps: boolean(),
  onBehalfOf: optional(text()),
});

const CHANGE_COMMON: Fields = { key: optional(text()), actor: ACTOR_SHAPE };

/** The shape the board checks a `boardChange` against before its own rules (workflows/board/board-book.ts). */
export const BOARD_CHANGE_SHAPE: Shape = variants('action', {
  add: { ...CHANGE_COMMON, text: nonBlank(), kind: oneOf(BOARD_ENTRY_KINDS) },
  replace: { ...CHANGE_COMMON, entryId: nonBlank(), text: nonBlank(), kind: optional(oneOf(BOARD_ENTRY_KINDS)) },
  confirm: { ...CHANGE_COMMON, entryId: nonBlank() },
  keep: { ...CHANGE_COMMON, entryId: nonBlank() },
  retire: { ...CHANGE_COMMON, entryId: nonBlank(), reason: optional(text()) },
});

/** Why a rem-agent run is asked for: a person's `/subconscious run`, a unit that settled, a thread's run that ended. */
export type ConsolidationTrigger = 'command' | 'unit' | 'run';

/** The `consolidate` signal: read this work's trajectory and update the board (one rem-agent run at a time). */
export interface ConsolidationRequest {
  /** Dedupe: a request the board has taken (or done) before is dropped. */
  key: string;
  trigger: ConsolidationTrigger;
  /** The workflows whose trajectories are read: runs, a unit (its runs with it), a thread (its runs). */
  sources: string[];
  /** Whose work it is (and who asked, for a command): decides whether the run's entries are kept. */
  requester: Requester;
  /** Where a short note of what changed goes. */
  replyTarget: ReplyTarget;
  /** The conversation it came from (the run's thread). */
  threadId?: string;
}

export const CONSOLIDATION_REQUEST_SHAPE: Shape = object({
  key: nonBlank(),
  trigger: oneOf(['command', 'unit', 'run']),
  sources: listOf(nonBlank()),
  requester: REQUESTER_SHAPE,
  replyTarget: REPLY_TARGET_SHAPE,
  threadId: optional(text()),
});

/** A board's input: its id and what it is the board of. */
export interface BoardInput {
  boardId: string;
  /** `owner/name` for a repository's board. */
  repo?: string;
  /** The channel of a Slack channel's board. */
  slack?: { team: string; channel: string };
  carry?: BoardCarry;
}

/** What a board carries across continue-as-new. */
export interface BoardCarry {
  book: BoardBookState;
  queue: ConsolidationRequest[];
  /** rem-agent runs started so far (their ids are `<board id>/rem-<n>`). */
  remRuns: number;
}

/** The entries and their bookkeeping (workflows/board/board-book.ts). */
export interface BoardBookState {
  entries: BoardEntry[];
  nextId: number;
  /** Normalised texts of retired entries (bounded): an addition matching one is refused unless a person makes it. */
  retiredTexts: string[];
  /** The last changes' keys and results, so a retried change answers what it did the first time. */
  applied: Array<{ key: string; result: BoardChangeResult }>;
  /** Consolidation keys taken (bounded): the same work is not consolidated twice. */
  consolidated: string[];
  /** The bounds last read from the settings. */
  bounds: BoardBounds;
}

/** How large a board may grow (`board.maxEntries`, `board.maxEntryChars`). */
export interface BoardBounds {
  maxEntries: number;
  maxEntryChars: number;
}

/** The `board` query's answer. */
export interface BoardState {
  boardId: string;
  repo?: string;
  entries: BoardEntry[];
  bounds: BoardBounds;
  /** Consolidations waiting, and the rem-agent run going on now. */
  queued: number;
  consolidating?: string;
  remRuns: number;
}

/** A change to the board; validated (shape, then the board's rules), refused as `board_change_refused`. */
export const boardChangeUpdate = defineUpdate<BoardChangeResult, [BoardChange]>('boardChange');
export const boardQuery = defineQuery<BoardState>('board');
export const consolidateSignal = defineSignal<[ConsolidationRequest]>('consolidate');

export type BoardWorkflow = (input: BoardInput) => Promise<void>;
/** Signal-with-started (or update-with-started) on `board:<owner>/<repo>` or `board:slack:<team>:<channel>`. */
export const boardWorkflowType = workflowType<BoardWorkflow>('boardWorkflow');
