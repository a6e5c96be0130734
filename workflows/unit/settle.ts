import type { UnitOutcome, UnitRecord } from '../contracts';
import { handoffText, unitReport } from './unit-prompts';
import type { Unit } from './unit';
import { releaseCheckout } from './unit-hosts';
import { conversationIsThePr, REPORT_ONCE_ON_ITS_PR } from './unit-gate';

/** The `patched()` id of awaiting the unit's `settled` update to its plan (docs/versioning.md). */
export const AWAIT_LAST_PLAN_UPDATE = 'unit-awaits-its-last-plan-update';

/** The end of a unit: the final report to the thread and the PR, the workspaces released, the outcome recorded, the plan told. */
export class Settle {
  constructor(private readonly unit: Unit) {}

  async run(final: UnitOutcome): Promise<UnitRecord> {
    const { unit } = this;
    const { carry: c, activities, unitId, repo } = unit;
    unit.enter('settle');
    const base = {
      unitId,
      repo,
      outcome: final,
      rounds: c.round,
      reviews: c.reviews,
      ...(c.pullRequest ? { pullRequest: c.pullRequest } : {}),
      ...(unit.endedBy ? { endedBy: unit.endedBy } : {}),
      ...(c.rerunRounds?.length ? { rerunRounds: c.rerunRounds } : {}),
      ...(c.spentUsd !== undefined ? { spentUsd: c.spentUsd } : {}),
    };
    const lastReview = c.lastReview ? `${c.lastReview.verdict} on ${c.lastReview.commitSha.slice(0, 12)}` : undefined;
    // A handoff is the report: what is done, what is left, why, and what it needs.
    const handoff = final === 'handed_off' && c.handoff ? `\n\n${handoffText(unitId, c.handoff, c.pullRequest, false)}` : '';
    const report = unitReport(base, lastReview, c.uncertain) + handoff;
    // Settling always ends with the record: a report that cannot be delivered after its retries
    // (a chat outage, a repository that is gone) is a lost view, not a unit failed without a record.
    // A unit that converses on its pull request (a plan's unit on GitHub) reports there once, as its comment.
    if (!unit.conversesOnPullRequest)
      await settleStep(activities.status.deliverReply({ effectKey: `${unitId}/report`, replyTarget: unit.replyTarget, text: report }));
    // A unit asked for on its PR reports there once: its conversation is that PR's comments.
    const onItsPr =
      !unit.conversesOnPullRequest &&
      conversationIsThePr(unit.input.replyTarget, repo, c.pullRequest) &&
      unit.ports.patched(REPORT_ONCE_ON_ITS_PR);
    if (c.pullRequest && !onItsPr)
      await settleStep(
        activities.githubWrites.postComment({
          repo,
          identity: 'write',
          number: c.pullRequest,
          body: report,
          effectKey: `${unitId}/report-comment`,
        }),
      );
    for (const key of [unitId, `${unitId}/review`]) await settleStep(releaseCheckout(unit, key));
    // Its reservation goes before the plan hears it settled, so the plan's next start can use the money.
    await settleStep(unit.spend?.release() ?? Promise.resolve());
    unit.ports.recordOutcome(final);
    // A signal sent in the workflow task that completes the unit is dropped by the server (the
    // sender has closed before it is delivered), and the plan would wait for this unit forever:
    // wait for it to land. Units that settled before this patch sent and completed at once; the
    // `false` branch goes once none of them can still be running (docs/versioning.md).
    if (unit.input.plan && unit.ports.patched(AWAIT_LAST_PLAN_UPDATE)) await unit.ports.notifyPlan({ status: 'settled', outcome: final });
    else unit.ports.notifyPlan({ status: 'settled', outcome: final }).catch(() => undefined);
    return { ...base, report, ...(c.uncertain?.length ? { unconfirmed: c.uncertain } : {}) };
  }
}

async function settleStep(work: Promise<unknown>): Promise<void> {
  await work.catch(() => undefined);
}
