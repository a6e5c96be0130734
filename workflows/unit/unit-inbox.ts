import type { StopInput, SteerInput, UnitCarry, UnitChecksEvent, UnitOutcome, UnitPhase, UnitPullRequestEvent } from '../contracts';

/**
 * What people and GitHub told the unit since it last looked: signals land here (handlers
 * stay trivial) and the workflow applies them at phase boundaries. Plain class: unit tests
 * drive it without Temporal.
 */
export class UnitInbox {
  stopped?: StopInput;
  terminal?: { outcome: Extract<UnitOutcome, 'merged' | 'closed'> };
  mergeRequested = false;
  private steers: SteerInput[] = [];
  private pushes: string[] = [];
  private humanReviews: Array<{ reviewId?: number; actor?: string; state?: string }> = [];
  private checksHeads = new Set<string>();
  private seenDeliveries = new Set<string>();

  constructor(private readonly carry: Pick<UnitCarry, 'headSha' | 'postedReviews'>) {}

  steer(steer: SteerInput): void {
    if (typeof steer?.text === 'string' && steer.text.trim())
      this.steers.push({ text: steer.text.trim(), ...(steer.by ? { by: steer.by } : {}) });
  }

  stop(stop: StopInput): void {
    this.stopped ??= stop;
  }

  requestMerge(): void {
    this.mergeRequested = true;
  }

  prEvent(event: UnitPullRequestEvent): void {
    if (!event || this.duplicate(event.deliveryId)) return;
    if (event.kind === 'merged') this.terminal = { outcome: 'merged' };
    else if (event.kind === 'closed') this.terminal ??= { outcome: 'closed' };
    else if (event.kind === 'synchronize' && event.headSha) this.pushes.push(event.headSha);
    else if (event.kind === 'review' && event.reviewState !== 'approved') {
      this.humanReviews.push({
        ...(event.reviewId ? { reviewId: event.reviewId } : {}),
        ...(event.actor ? { actor: event.actor } : {}),
        ...(event.reviewState ? { state: event.reviewState } : {}),
      });
    }
  }

  checks(event: UnitChecksEvent): void {
    if (!event || this.duplicate(event.deliveryId)) return;
    if (event.headSha) this.checksHeads.add(event.headSha);
  }

  checksArrivedFor(headSha: string): boolean {
    return this.checksHeads.has(headSha);
  }

  clearChecks(): void {
    this.checksHeads.clear();
  }

  /** Something that ends the current wait: a stop, a merge or close, a steer, a foreign push, a person's review. */
  interrupting(): boolean {
    return (
      Boolean(this.stopped || this.terminal) ||
      this.steers.length > 0 ||
      this.foreignPushes().length > 0 ||
      this.pendingHumanReviews().length > 0
    );
  }

  /** Nothing waiting to be applied (safe to continue-as-new). */
  quiet(): boolean {
    return !this.interrupting() && !this.mergeRequested;
  }

  /** Pushes or reviews of the PR are waiting (held while the unit has no PR, see `apply`). */
  hasPullRequestEvents(): boolean {
    return this.pushes.length > 0 || this.humanReviews.length > 0;
  }

  /**
   * Turns pending steers and foreign pushes into work and a phase; returns the people's reviews
   * to fetch. With `hold`, pushes and reviews stay for later: a unit that has not (re)opened its
   * PR yet cannot tell its own from a person's (a reset unit is handed its earlier events first).
   */
  apply(
    carry: UnitCarry,
    enter: (phase: UnitPhase) => void,
    options: { hold?: boolean } = {},
  ): Array<{ reviewId?: number; actor?: string; state?: string }> {
    const foreign = options.hold ? [] : this.foreignPushes();
    const reviews = options.hold ? [] : this.pendingHumanReviews();
    if (!options.hold) {
      this.pushes = [];
      this.humanReviews = [];
    }
    const steers = this.steers.splice(0);
    for (const steer of steers) carry.work.push({ kind: 'steer', text: steer.text, ...(steer.by ? { by: steer.by } : {}) });
    if (steers.length > 0 && carry.phase !== 'coding' && carry.phase !== 'findings') enter('coding');
    else if (foreign.length > 0 && steers.length === 0) {
      carry.headSha = foreign[foreign.length - 1];
      enter('review');
    }
    return reviews;
  }

  private foreignPushes(): string[] {
    return this.pushes.filter((sha) => sha !== this.carry.headSha);
  }

  private pendingHumanReviews() {
    return this.humanReviews.filter(
      (review) => review.reviewId === undefined || !(this.carry.postedReviews ?? []).includes(review.reviewId),
    );
  }

  private duplicate(deliveryId: string | undefined): boolean {
    if (!deliveryId) return false;
    if (this.seenDeliveries.has(deliveryId)) return true;
    this.seenDeliveries.add(deliveryId);
    return false;
  }
}
