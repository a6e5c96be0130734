import type { StatusActivities } from '../activity-proxies';
import type { PlanInput, PlanRecord } from '../contracts';
import { planCard } from './plan-card';
import type { PlanProgress } from './plan-progress';

/** The deliveries a plan's reports make: its card (edited in place) and its replies (recorded when unconfirmed). */
export interface PlanReportActivities {
  status: Pick<StatusActivities, 'planCard'>;
  replies: Pick<StatusActivities, 'deliverReply'>;
}

/**
 * What a plan says in its conversation as it goes and when it settles. With a card (`card`: plans
 * since PLAN_UNIT_THREADS), one message edited in place, sent again only when its picture
 * changed; without (plans recorded before), a progress reply per picture, keyed by its text.
 */
export class PlanReports {
  private lastCard?: string;

  constructor(
    private readonly input: PlanInput,
    private readonly progress: PlanProgress,
    private readonly activities: PlanReportActivities,
    private readonly card: boolean,
  ) {}

  /** After each turn of the plan's loop. */
  async report(): Promise<void> {
    const { input, progress, activities } = this;
    if (this.card) {
      // The card is one message, edited in place; an unchanged picture is not sent again.
      const text = planCard(progress.state(), progress.phase());
      if (text !== this.lastCard)
        await activities.status.planCard({ planId: input.planId, effectKey: `${input.planId}/card`, replyTarget: input.replyTarget, text });
      this.lastCard = text;
      return;
    }
    const text = progress.progressText();
    // Progress reports are keyed by their text, so an unchanged picture is not posted twice.
    await activities.replies.deliverReply({ effectKey: `${input.planId}/progress/${hash(text)}`, replyTarget: input.replyTarget, text });
  }

  /** The settled plan's card (a card that cannot be delivered is no reason not to settle), then its final report. */
  async settled(outcome: PlanRecord['outcome'], finalReport: string): Promise<void> {
    const { input, progress, activities } = this;
    if (this.card)
      await activities.status
        .planCard({
          planId: input.planId,
          effectKey: `${input.planId}/card`,
          replyTarget: input.replyTarget,
          text: planCard(progress.state(), outcome),
        })
        .catch(() => undefined);
    await activities.replies.deliverReply({ effectKey: `${input.planId}/report`, replyTarget: input.replyTarget, text: finalReport });
  }
}

/** A short deterministic hash (FNV-1a) for effect keys. */
export function hash(text: string): string {
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    value ^= text.charCodeAt(index);
    value = Math.imul(value, 0x01000193) >>> 0;
  }
  return value.toString(16);
}
