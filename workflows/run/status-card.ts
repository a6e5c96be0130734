import { isCancellation } from '@temporalio/workflow';
import type { EffectResult, StatusCardInput } from '../contracts/status';
import type { ReplyTarget } from '../contracts';
import type { StatusActivities } from '../activity-proxies';
import type { WorkflowClock } from './run-control';
import type { RunState } from './run-state';

/** The card is updated at most this often; changes in between are coalesced. */
export const CARD_MIN_INTERVAL_MS = 3_000;

export interface StatusCardDeps {
  runId: string;
  replyTarget: ReplyTarget;
  state: RunState;
  status: Pick<StatusActivities, 'statusCard'>;
  clock: WorkflowClock;
  /** `CancellationScope.nonCancellable`: the last card goes out even when the run is being cancelled. */
  nonCancellable<T>(work: () => Promise<T>): Promise<T>;
  /** Called whenever the run's state changed (the Web UI's current details follow it). */
  onChange?(): void;
  /**
   * An unconfirmed post is repaired (runs recorded before this kept one key for good): the next
   * update posts the card afresh under the next key and edits the earlier post if it turns up.
   */
  repairs?: boolean;
  /** The last update could not be confirmed and no later one will repair it: list it with the run's uncertain writes. */
  lost?(input: StatusCardInput, result: EffectResult): Promise<void>;
}

/**
 * The run's status card, throttled in workflow time: at most one update per interval, the
 * latest state wins, and the final state is always sent. A card that cannot be delivered (a
 * long chat outage) is a lost view, never a failed run.
 */
export class StatusCard {
  private dirty = true;
  private loop?: Promise<void>;

  constructor(private readonly deps: StatusCardDeps) {}

  /** Marks the card for its next (throttled) update. */
  touch(): void {
    this.dirty = true;
    this.deps.onChange?.();
  }

  /** Starts the throttled loop; it ends when the run finishes. */
  start(): void {
    this.loop = this.throttled();
  }

  /** Sends the card now: the final one (after the loop has drained), or one before continue-as-new. */
  async settle(final: boolean): Promise<void> {
    const { state } = this.deps;
    await this.deps.nonCancellable(async () => {
      state.phase = final ? 'finished' : state.phase;
      if (final) await this.loop;
      await this.push(final);
    });
  }

  private async throttled(): Promise<void> {
    const { state, clock } = this.deps;
    for (;;) {
      await clock.condition(() => this.dirty || state.finished);
      if (state.finished) return;
      this.dirty = false;
      await this.push(false);
      await clock.condition(() => state.finished, CARD_MIN_INTERVAL_MS);
    }
  }

  private async push(final: boolean): Promise<void> {
    const { runId, replyTarget, state, status, clock } = this.deps;
    const { card } = state;
    this.deps.onChange?.();
    const input: StatusCardInput = {
      runId,
      effectKey: `${runId}/card/${card.generation}`,
      replyTarget,
      status: state.status(runId, clock.now()),
      final,
      ...(final ? { answer: state.finalText } : {}),
      ...(card.earlier.length > 0 ? { earlierKeys: [...card.earlier] } : {}),
    };
    try {
      const result = await status.statusCard(input);
      if (result.status !== 'unconfirmed' || !this.deps.repairs) return;
      // Maybe posted, maybe not: never posted again under this key. The next update looks for it
      // (and edits it if it turned up) and otherwise posts the card afresh under the next key.
      card.earlier.push(input.effectKey);
      card.generation += 1;
      if (final) await this.deps.lost?.(input, result);
    } catch (error) {
      if (isCancellation(error)) throw error;
      state.cardFailures += 1;
    }
  }
}
