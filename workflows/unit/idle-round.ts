import type { UnitOutcome } from '../contracts';
import type { Unit } from './unit';

const MINUTE = 60_000;

/**
 * The PR is ready: the thread is told once per head, then the unit waits for people (a steer,
 * a review, a push, a merge or close) with reminder alarms until the idle window closes. A
 * `merge` from the unit's plan merges the PR at its reviewed head.
 */
export class IdleRound {
  constructor(private readonly unit: Unit) {}

  async run(): Promise<UnitOutcome | undefined> {
    const { unit } = this;
    const { carry: c, settings, activities, inbox, ports, unitId, repo } = unit;
    const { ship } = settings;
    const ready =
      c.checks?.state === 'success'
        ? 'the review approves and checks are green'
        : `the review approves; ${c.checks?.detail ?? 'checks are unknown'}`;
    await activities.status.deliverReply({
      effectKey: `${unitId}/ready/${c.headSha}`,
      replyTarget: unit.replyTarget,
      text: `PR #${c.pullRequest} on ${repo} is ready: ${ready}.`,
    });
    unit.ports.notifyPlan({ status: 'ready' }).catch(() => undefined);
    const deadline = ports.now() + ship.idleTimeoutDays * 24 * 60 * MINUTE;
    const every = ship.reminderHours * 60 * MINUTE;
    for (;;) {
      const wait = Math.min(every, Math.max(0, deadline - ports.now()));
      unit.nextTimer = { purpose: wait < every ? 'idle expiry' : 'reminder', at: new Date(ports.now() + wait).toISOString() };
      const woke = await ports.condition(() => inbox.interrupting() || inbox.mergeRequested, wait);
      unit.nextTimer = undefined;
      if (inbox.interrupting()) return undefined;
      if (inbox.mergeRequested) return this.merge();
      if (!woke && ports.now() >= deadline) return 'idle_expired';
      if (!woke) {
        c.reminders += 1;
        await activities.status.deliverReply({
          effectKey: `${unitId}/reminder/${c.reminders}`,
          replyTarget: unit.replyTarget,
          text: `Reminder: PR #${c.pullRequest} on ${repo} is ready and waiting for a merge or a review.`,
        });
      }
    }
  }

  /** The plan's merge: at the reviewed head only; a refusal goes back to the plan, and the unit stays idle. */
  private async merge(): Promise<UnitOutcome | undefined> {
    const { unit } = this;
    const { carry: c, unitId, repo } = unit;
    unit.inbox.mergeRequested = false;
    const merged = await unit.activities.githubWrites.mergePullRequest({
      repo,
      identity: 'write',
      number: c.pullRequest!,
      expectedHeadSha: c.headSha!,
      effectKey: `${unitId}/merge/${c.headSha}`,
    });
    if (merged.status === 'confirmed') return 'merged';
    unit.ports.notifyPlan({ status: 'merge_refused', reason: merged.reason ?? merged.status }).catch(() => undefined);
    return undefined;
  }
}
