/**
 * The review conversation a ship unit keeps (issue 33): every finding it must answer — its own
 * review's at or above the gate, and each person's comment on its PR — with an id the coding run
 * names, where its thread is on GitHub, and what was answered there. Carried across
 * continue-as-new in `UnitCarry.findings`; a coding run of the unit gets the open ones
 * (`RunInput.findings`) and answers them with `submit_dispositions`.
 */

/** Severity belongs to each finding; the unit's gate (`review.addressSeverity`) compares against this order. */
export const FINDING_SEVERITIES = ['blocking', 'major', 'minor', 'nit'] as const;
export type FindingSeverity = (typeof FINDING_SEVERITIES)[number];

/** One defect a review found, as `submit_review` takes it (tools/submit-review.ts checks its schema against this). */
export interface Finding {
  severity: FindingSeverity;
  path: string;
  /** In the PR head version (the last line of several); with side LEFT, in the base version. */
  line: number;
  side?: 'RIGHT' | 'LEFT';
  /** The first line, when the finding spans lines startLine..line. */
  startLine?: number;
  title: string;
  /** The failure scenario, or the explicit rule the change violates. */
  scenario: string;
  impact: string;
  /** A drop-in replacement of the head version's lines, posted as a suggestion. */
  suggestion?: string;
}

/** How a coding run answered one finding. */
export const DISPOSITION_KINDS = ['fixed', 'declined', 'question'] as const;
export type DispositionKind = (typeof DISPOSITION_KINDS)[number];

/** Why a finding was declined. */
export const DECLINE_REASONS = ['not_a_defect', 'out_of_scope', 'conflicts_with_instruction'] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

/** One answer, as `submit_dispositions` takes it. */
export interface Disposition {
  /** The finding's id (`F3`). */
  finding: string;
  disposition: DispositionKind;
  /** fixed: the commit the run named (absent: the round's pushed head is named). */
  commit?: string;
  /** declined: why. */
  reason?: DeclineReason;
  /** What the reply on the finding's thread says. */
  text: string;
}

/**
 * Where a finding stands. `open`: the next coding round answers it. `fixed`, `declined`: answered,
 * the next review confirms the fix or accepts the decline. `question`: the coding run asked a
 * person, and waits for the answer on the thread. `resolved`: a review confirmed the fix (its
 * thread is resolved). `accepted`: a review accepted the decline. `answered`: a person's comment
 * answered as fixed or declined (people decide on their own threads). `superseded`: a later
 * review of the unit replaced it (what still held it reported again).
 */
export type FindingState = 'open' | 'fixed' | 'declined' | 'question' | 'resolved' | 'accepted' | 'answered' | 'superseded';

export interface TrackedFinding {
  id: string;
  source: 'review' | 'human';
  /** The unit's review's finding: its severity (absent for a person's comment). */
  severity?: FindingSeverity;
  path?: string;
  line?: number;
  /** The finding in one line (a person's comment: its first words). */
  title: string;
  /** More of it, bounded: the failure scenario and impact, or a person's whole comment. */
  detail?: string;
  /** Who wrote it (a person's comment). */
  author?: string;
  /** The review comment that starts its thread on GitHub (absent: no line thread; replies go to the PR's conversation). */
  commentId?: number;
  /** The commit the unit's review found it on. */
  raisedOn?: string;
  state: FindingState;
  /** The last answer (absent: none yet). */
  disposition?: Disposition & { round: number };
  /** What came back since: a review's answer to a decline, a person's reply on the thread (the last few). */
  answers?: string[];
}

/** The open finding as a coding run sees it (`RunInput.findings`), to answer by id. */
export interface FindingRef {
  id: string;
  title: string;
  /** `src/a.ts:3`, when it is on a line. */
  place?: string;
}

/** A coding run that cannot finish says so with `submit_handoff`. */
export interface Handoff {
  done: string;
  left: string;
  reason: 'budget' | 'blocker' | 'decision';
  why: string;
  needs: string;
  /** A question for a person: the unit waits for the answer instead of settling `handed_off`. */
  question?: string;
}
