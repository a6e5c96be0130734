import type { Finding } from '../contracts/findings';
import type { Disposition, FindingRef, TrackedFinding, UnitCarry } from '../contracts';
import type { Submission } from './review-gate';
import { findingPlace } from './review-render';

/** The `patched()` id of a unit that answers every finding on its thread (issue 33; docs/versioning.md). */
export const ANSWERS_FINDINGS = 'unit-answers-findings';

/** Findings kept in the carry; the oldest settled ones drop off first. */
export const FINDINGS_KEPT = 60;
/** Answers kept on one finding (the latest). */
const ANSWERS_KEPT = 4;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** What a review's exchange did to the findings it was shown: threads to resolve, declines accepted or kept. */
export interface ReviewExchange {
  resolved: TrackedFinding[];
  accepted: Array<{ finding: TrackedFinding; answer: string }>;
  kept: Array<{ finding: TrackedFinding; answer: string }>;
}

/**
 * The findings a unit answers, over its carry (plain class; unit tests drive it alone). A review's
 * findings at or above the gate and each person's comment get an id (`F<n>`) and a state; a
 * coding round answers the open ones, the next review confirms fixes and judges declines, a
 * person's reply on a thread reopens its finding. The gate counts what is still open.
 */
export class FindingsLedger {
  constructor(private readonly carry: Pick<UnitCarry, 'findings' | 'nextFinding'>) {}

  get all(): TrackedFinding[] {
    return (this.carry.findings ??= []);
  }

  /** The ids the next `count` findings will get (nothing is taken until `raise`). */
  nextIds(count: number): string[] {
    const first = this.carry.nextFinding ?? 1;
    return Array.from({ length: count }, (_, i) => `F${first + i}`);
  }

  /** A review's findings at or above the gate, tracked under the ids `nextIds` named, open. */
  raise(findings: readonly Finding[], commitSha: string): TrackedFinding[] {
    const ids = this.nextIds(findings.length);
    this.carry.nextFinding = (this.carry.nextFinding ?? 1) + findings.length;
    const raised = findings.map((finding, i): TrackedFinding => ({
      id: ids[i],
      source: 'review',
      severity: finding.severity,
      path: finding.path,
      line: finding.line,
      title: cut(finding.title, 200),
      detail: cut(`${finding.scenario}\nImpact: ${finding.impact}`, 700),
      raisedOn: commitSha,
      state: 'open',
    }));
    this.all.push(...raised);
    this.trim();
    return raised;
  }

  /** A person's comment (a line comment, a review's body, a reply on a thread the unit does not track), open. */
  addHuman(comment: { author?: string; body: string; path?: string; line?: number; commentId?: number }): TrackedFinding {
    const [id] = this.nextIds(1);
    this.carry.nextFinding = (this.carry.nextFinding ?? 1) + 1;
    const firstLine = comment.body.trim().split('\n')[0] ?? '';
    const finding: TrackedFinding = {
      id,
      source: 'human',
      title: cut(firstLine || '(no text)', 200),
      detail: cut(comment.body.trim(), 1500),
      state: 'open',
      ...(comment.author ? { author: comment.author } : {}),
      ...(comment.path ? { path: comment.path } : {}),
      ...(comment.line ? { line: comment.line } : {}),
      ...(comment.commentId ? { commentId: comment.commentId } : {}),
    };
    this.all.push(finding);
    this.trim();
    return finding;
  }

  byId(id: string): TrackedFinding | undefined {
    return this.all.find((finding) => finding.id === id);
  }

  /** The finding whose thread starts with this review comment. */
  byComment(commentId: number): TrackedFinding | undefined {
    return this.all.find((finding) => finding.commentId === commentId);
  }

  /** Findings the next coding round must answer. */
  open(): TrackedFinding[] {
    return this.all.filter((finding) => finding.state === 'open');
  }

  /** Questions a coding run asked that wait for a person's answer. */
  questions(): TrackedFinding[] {
    return this.all.filter((finding) => finding.state === 'question');
  }

  /** The open findings as the coding run names them. */
  refs(): FindingRef[] {
    return this.open().map((finding) => ({
      id: finding.id,
      title: finding.title,
      ...(finding.path && finding.line ? { place: `${finding.path}:${finding.line}` } : {}),
    }));
  }

  /** The unit's review findings the next review is shown: answered as fixed or declined, or not answered at all. */
  awaitingReview(): TrackedFinding[] {
    return this.all.filter((f) => f.source === 'review' && (f.state === 'open' || f.state === 'fixed' || f.state === 'declined'));
  }

  /**
   * A round's answers, checked again here (the run's record is data): each open finding's first
   * answer counts. A person's comment answered as fixed or declined is `answered` (the person
   * decides on their thread); the unit's own go to the next review. Returns what to reply to.
   */
  answer(dispositions: readonly Disposition[], round: number): TrackedFinding[] {
    const answered: TrackedFinding[] = [];
    for (const disposition of dispositions) {
      const finding = this.byId(disposition.finding);
      if (!finding || finding.state !== 'open' || answered.includes(finding)) continue;
      finding.disposition = { ...disposition, text: cut(disposition.text, 2000), round };
      finding.state =
        disposition.disposition === 'question' ? 'question' : finding.source === 'human' ? 'answered' : disposition.disposition;
      answered.push(finding);
    }
    return answered;
  }

  /**
   * What a review did with the findings it was shown (`shown`, numbered from 1 as the request
   * listed them): `resolved` fixes are confirmed, declines accepted or kept open with the
   * reviewer's answer; the rest are superseded (the review reported again what still held).
   */
  reviewed(shown: readonly TrackedFinding[], submission: Pick<Submission, 'resolved' | 'declines'>): ReviewExchange {
    const exchange: ReviewExchange = { resolved: [], accepted: [], kept: [] };
    shown.forEach((finding, index) => {
      const number = index + 1;
      const judged = submission.declines?.find((decline) => decline.finding === number);
      if (finding.state === 'declined' && judged) {
        const answer = cut(judged.answer, 2000);
        this.note(finding, `review: ${answer}`);
        if (judged.accept) {
          finding.state = 'accepted';
          exchange.accepted.push({ finding, answer });
        } else {
          finding.state = 'open';
          exchange.kept.push({ finding, answer });
        }
      } else if (submission.resolved?.includes(number)) {
        finding.state = 'resolved';
        exchange.resolved.push(finding);
      } else finding.state = 'superseded';
    });
    return exchange;
  }

  /** A person replied on a finding's thread: the finding is open again, with their words. */
  reopen(finding: TrackedFinding, answer: string): void {
    finding.state = 'open';
    this.note(finding, answer);
  }

  /** Questions become open again (a person wrote meanwhile: the next round answers them in its light). */
  reopenQuestions(note: string): void {
    for (const finding of this.questions()) this.reopen(finding, note);
  }

  private note(finding: TrackedFinding, answer: string): void {
    finding.answers = [...(finding.answers ?? []), cut(answer, 1500)].slice(-ANSWERS_KEPT);
  }

  /** Keeps the carry bounded: settled findings drop off, oldest first. */
  private trim(): void {
    const all = this.all;
    const settled = (f: TrackedFinding) => !['open', 'fixed', 'declined', 'question'].includes(f.state);
    while (all.length > FINDINGS_KEPT) {
      const index = all.findIndex(settled);
      all.splice(index >= 0 ? index : 0, 1);
    }
  }
}

/** Where a tracked finding is, as a person reads it (absent: not on a line). */
export function trackedPlace(finding: TrackedFinding): string | undefined {
  return finding.path && finding.line ? findingPlace({ path: finding.path, line: finding.line } as Finding) : undefined;
}

/** A coding run's `submit_dispositions`, read defensively (a record is data): the well-formed answers. */
export function dispositionsOf(raw: unknown): Disposition[] {
  const list = (raw as { dispositions?: unknown } | undefined)?.dispositions;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (d): d is Disposition =>
      typeof d?.finding === 'string' && ['fixed', 'declined', 'question'].includes(d?.disposition) && typeof d?.text === 'string',
  );
}
