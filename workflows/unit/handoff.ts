import type { Handoff, UnitOutcome } from '../contracts';
import type { Unit } from './unit';
import { conversationIsThePr } from './unit-gate';
import { handoffText } from './unit-prompts';

/** A coding run's `submit_handoff`, read defensively (a record is data). */
export function handoffOf(raw: unknown): Handoff | undefined {
  const h = raw as Partial<Handoff> | undefined;
  if (!h || typeof h.done !== 'string' || typeof h.left !== 'string' || typeof h.why !== 'string' || typeof h.needs !== 'string')
    return undefined;
  const reason = h.reason === 'budget' || h.reason === 'blocker' || h.reason === 'decision' ? h.reason : 'blocker';
  return {
    done: h.done,
    left: h.left,
    reason,
    why: h.why,
    needs: h.needs,
    ...(typeof h.question === 'string' && h.question.trim() ? { question: h.question } : {}),
  };
}

/**
 * A coding run handed off (after the round's work was pushed). Without a question the unit settles
 * `handed_off`, and its final report carries the handoff (settle.ts). With one, the handoff is said
 * on the pull request and in the conversation, and the unit waits in idle, never calling the PR
 * ready, until a person answers; the next coding round starts from the handoff.
 */
export async function handOff(unit: Unit, handoff: Handoff): Promise<UnitOutcome | undefined> {
  const { carry: c, unitId, repo, input, activities } = unit;
  c.handoff = { ...handoff, round: c.round };
  if (!handoff.question) {
    const reason = {
      budget: 'its budget is nearly spent',
      blocker: 'a blocker it cannot clear',
      decision: 'a decision only a person can make',
    }[handoff.reason];
    unit.endedBy = `${reason}: ${handoff.why.trim().replace(/[.\s]+$/, '')}`;
    return 'handed_off';
  }
  const text = handoffText(unitId, handoff, c.pullRequest);
  const key = `${unitId}/handoff/${c.round}`;
  if (c.pullRequest)
    await activities.githubWrites
      .postComment({ repo, identity: 'write', number: c.pullRequest, body: text, effectKey: key })
      .catch(() => undefined);
  if (!c.pullRequest || !conversationIsThePr(input.replyTarget, repo, c.pullRequest))
    await activities.status.deliverReply({ effectKey: `${key}/reply`, replyTarget: input.replyTarget, text }).catch(() => undefined);
  unit.enter('idle');
  return undefined;
}

/** What the next coding round is told of the handoff it goes on from (the person's answer follows as their message). */
export function resumeNote(handoff: Handoff & { round: number }): string {
  return [
    `The coding run of round ${handoff.round} handed off with a question; a person has answered since (their words are below). Go on from where it stopped.`,
    `It had done: ${handoff.done}`,
    `It had left: ${handoff.left}`,
    `Its question: ${handoff.question ?? handoff.needs}`,
  ].join('\n');
}
