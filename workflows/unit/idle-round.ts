import type { UnitOutcome } from '../contracts';
import type { Unit } from './unit';
import { GATE_READS_OWN_REVIEW, notReadyBecause } from './unit-gate';
import { trackedPlace } from './findings-ledger';

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
    // "Ready" only on the unit's own approving review of this very head (never another's, never an older head's),
    // with no finding open and no question waiting for a person.
    const answering = unit.answersFindings();
    const asks = answering ? questionsAsked(unit) : undefined;
    const open = answering ? unit.findings.open().length : 0;
    const pr = c.pullRequest ? `PR #${c.pullRequest} on ${repo}` : `The change on ${repo} (no pull request yet)`;
    const notReady =
      asks?.why ??
      (c.pullRequest ? undefined : 'it has no pull request yet') ??
      (unit.ports.patched(GATE_READS_OWN_REVIEW) ? notReadyBecause(c) : undefined) ??
      (open > 0 ? `${open} finding${open === 1 ? ' is' : 's are'} still open` : undefined);
    if (asks) {
      // A handoff's question alone was said by the handoff itself, on the PR and in the conversation.
      if (asks.findings > 0)
        await activities.status.deliverReply({ effectKey: `${unitId}/asks/${asks.key}`, replyTarget: unit.replyTarget, text: asks.text });
    } else if (notReady) {
      await activities.status.deliverReply({
        effectKey: `${unitId}/not-ready/${c.headSha}`,
        replyTarget: unit.replyTarget,
        text: `${pr} is not ready: ${notReady}. The unit waits for a person (a steer, a review or a push).`,
      });
    } else {
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
    }
    const deadline = ports.now() + ship.idleTimeoutDays * 24 * 60 * MINUTE;
    const every = ship.reminderHours * 60 * MINUTE;
    for (;;) {
      const wait = Math.min(every, Math.max(0, deadline - ports.now()));
      unit.nextTimer = { purpose: wait < every ? 'idle expiry' : 'reminder', at: new Date(ports.now() + wait).toISOString() };
      const woke = await ports.condition(() => inbox.interrupting() || inbox.mergeRequested, wait);
      unit.nextTimer = undefined;
      if (inbox.interrupting()) return undefined;
      // A merge asked for while the PR was ready is not one for a head that is not (rework since, a question).
      if (inbox.mergeRequested && notReady) this.refuseMerge(notReady);
      else if (inbox.mergeRequested) return this.merge();
      if (!woke && ports.now() >= deadline) return 'idle_expired';
      if (!woke) {
        c.reminders += 1;
        await activities.status.deliverReply({
          effectKey: `${unitId}/reminder/${c.reminders}`,
          replyTarget: unit.replyTarget,
          text: notReady
            ? `Reminder: ${pr} is not ready (${notReady}) and waits for a person.`
            : `Reminder: ${pr} is ready and waiting for a merge or a review.`,
        });
      }
    }
  }

  /** A merge the unit will not do now: the plan is told why, and the unit stays idle. */
  private refuseMerge(why: string): void {
    this.unit.inbox.mergeRequested = false;
    this.unit.ports.notifyPlan({ status: 'merge_refused', reason: `not ready: ${why}` }).catch(() => undefined);
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

/** The questions waiting for a person (a coding run's on findings' threads, a handoff's), in words, and the key of saying so. */
function questionsAsked(unit: Unit): { why: string; text: string; key: string; findings: number } | undefined {
  const { carry: c, repo } = unit;
  const asked = unit.findings.questions();
  const lines = asked.map((f) => {
    const place = trackedPlace(f);
    return `- ${f.id}${place ? ` on \`${place}\`` : ''} (${f.title}): ${f.disposition?.text ?? ''}`;
  });
  if (c.handoff?.question) lines.push(`- The coding run of round ${c.handoff.round} handed off: ${c.handoff.question}`);
  if (lines.length === 0) return undefined;
  const where = asked.length > 0 ? "Answer in the finding's thread on the pull request, or here." : 'Answer here.';
  return {
    why: `${lines.length === 1 ? 'a question waits' : `${lines.length} questions wait`} for a person's answer`,
    text: `${c.pullRequest ? `PR #${c.pullRequest}` : 'The change'} on ${repo} waits for an answer before it can be ready:\n${lines.join('\n')}\n${where}`,
    findings: asked.length,
    key: [...asked.map((f) => `${f.id}.${f.disposition?.round ?? 0}`), ...(c.handoff?.question ? [`handoff-${c.handoff.round}`] : [])].join(
      '-',
    ),
  };
}
