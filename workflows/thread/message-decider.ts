import type { AgentSetup } from '../../activities/agents/agent-setup';
import { isSlashCommand } from '../../agents';
import { planAsk } from '../../agents/plan-message';
import type { ReplyTarget, ThreadMessage } from '../contracts';
import { autoReviewText } from './auto-review';
import { THREAD_SLASH_COMMANDS } from './board-command';
import { classifierOn } from './classify';
import { decide, type Decision } from './decide';
import { seededMessage, THREAD_SEEDS_ISSUES } from './issue-seed';
import { THREAD_STARTS_PLANS } from './plan-ask';
import { repoInPlay, settingsNotice, THREAD_REPO_SETTINGS, withRepository } from './repo-settings';
import type { ThreadSpend } from './spend';
import type { ThreadEffects } from './thread-effects';
import type { ThreadMemory } from './thread-memory';
import { orUnavailable } from './unavailable';
import { needsVetting, VET_REPOSITORY_PATCH, vetInput, vetRefusal } from './vet';

/** Marks histories whose threads route by the rules that find review, explore and research, and may ask a classifier. */
export const ROUTING_FINDS_AGENTS = 'routing-finds-agents';
/** Marks histories whose threads check a GitHub actor's role on the repository per agent (`githubActorCheck`). */
export const GITHUB_ACTOR_ADMITTED = 'thread-github-actor-admitted';
/** Marks histories whose threads load the agent setup as a local activity (before: an activity). */
export const PATCH_LOCAL_SETUP = 'thread-local-agent-setup';

/** A message decided, with what it was decided from: the thread answers it (a refusal, a unit, the board, a run). */
export interface Decided {
  /** The message as decided (an issue's seeded, an automatic review's in words). */
  message: ThreadMessage;
  replyTarget: ReplyTarget;
  /** The agent setup with the repository's own settings: the admission's facts. */
  setup: AgentSetup;
  /** The repository the message's work would be on, if any. */
  repo: string | undefined;
  decision: Decision;
  /** The money a run's start holds (its decision is `decision`). */
  spend: ThreadSpend;
}

/**
 * Decides one message taken off the queue, step by step, each step's activity in the order the
 * thread has always called them: the issue it seeds, the agent setup, the repository's settings,
 * then a plan (answered here), or the route (rules, slash commands, a classifier), the repository
 * vet and the spend caps. The sticky agent follows the decision.
 */
export class MessageDecider {
  constructor(
    private readonly memory: ThreadMemory,
    private readonly effects: ThreadEffects,
  ) {}

  /** The message's decision, or undefined when it was answered on the way (a plan). */
  async decide(taken: ThreadMessage, replyTarget: ReplyTarget): Promise<Decided | undefined> {
    const { memory, effects } = this;
    const message = await this.read(taken, replyTarget);
    const { setup, repo } = await this.facts(message, replyTarget);
    memory.facts = setup;
    if (await this.plan(message, replyTarget, setup)) return undefined;
    let decision = await this.route(setup, message, replyTarget);
    // A repository run's owner/name is vetted (one GET, the run's own identity) before any workspace exists.
    if (decision.kind === 'run' && needsVetting(decision.profile) && effects.patched(VET_REPOSITORY_PATCH)) {
      decision = vetRefusal(decision, await effects.github.vetRepository(vetInput(decision.profile))) ?? decision;
    }
    // Spend caps, where any are configured: a run's money is reserved before it starts; past a daily cap, refused with the amount and the reset time.
    const { threadId } = memory;
    const spend = await effects.spend(setup, decision, message, threadId, `run:${threadId}:${memory.runCount + 1}`);
    // An automatic review keeps the conversation's agent as it was (it is the repository's, not the person's choice).
    if (!message.review) memory.stickyAgent = spend.decision.stickyAgent;
    return { message, replyTarget, setup, repo, decision: spend.decision, spend };
  }

  /** The words to decide: an issue's unit is seeded with the issue itself (read now), an automatic review said as a request. */
  private async read(taken: ThreadMessage, replyTarget: ReplyTarget): Promise<ThreadMessage> {
    let message = taken;
    if (message.seed && this.effects.patched(THREAD_SEEDS_ISSUES)) {
      const issue = await this.effects.github
        .githubIssueThread({ repo: replyTarget.kind === 'github' ? replyTarget.repo : '', number: message.seed.issue })
        .catch(() => undefined);
      message = issue ? seededMessage(message, issue) : message;
    }
    if (message.review) message = { ...message, text: autoReviewText(message.review) };
    return message;
  }

  /** The agent setup, with the repository's own settings (its .switchboard.yml): which agents it allows is one of the admission's facts. */
  private async facts(message: ThreadMessage, replyTarget: ReplyTarget): Promise<{ setup: AgentSetup; repo: string | undefined }> {
    const { effects } = this;
    // A local activity: decided and the run started in one workflow task, no task-queue round trip.
    let setup = await effects.loadSetup(effects.patched(PATCH_LOCAL_SETUP));
    const repo = repoInPlay(setup, message, replyTarget);
    if (repo && effects.patched(THREAD_REPO_SETTINGS)) {
      const settings = await effects.github.repoSettings({ repo }).catch(() => undefined);
      setup = withRepository(setup, settings);
      const notice = settingsNotice(settings);
      // Said once per version of a broken file in this conversation (the key names the file's blob).
      if (notice) await effects.notice.deliverReply({ ...notice, replyTarget }).catch(() => undefined);
    }
    return { setup, repo };
  }

  /** A plan (`plan` and its YAML) starts a plan workflow through the same admission; threads recorded before decided it as any message. */
  private async plan(message: ThreadMessage, replyTarget: ReplyTarget, setup: AgentSetup): Promise<boolean> {
    const { memory, effects } = this;
    const asked = planAsk(message.text);
    if (!asked || !effects.patched(THREAD_STARTS_PLANS)) return false;
    const unavailable = { messageId: message.messageId, threadId: memory.threadId, replyTarget, status: effects.status, what: 'The plan' };
    const planned = await orUnavailable(
      () => effects.plan(asked, message, replyTarget, setup, effects.status, memory.planDraft),
      unavailable,
    );
    if (planned.kind === 'plan' && 'confirm' in asked) memory.planDraft = undefined;
    memory.remember({ messageId: message.messageId, ...planned });
    return true;
  }

  /** The rules that find review, explore and research (over routable agents only), then the classifier where the deployment turned it on. */
  private async route(setup: AgentSetup, message: ThreadMessage, replyTarget: ReplyTarget): Promise<Decision> {
    const { memory, effects } = this;
    // A GitHub actor's role is checked per agent; threads recorded before that decided without it (docs/versioning.md).
    const skip = message.requester.surface === 'github' && !effects.patched(GITHUB_ACTOR_ADMITTED) ? (['github_actor'] as const) : [];
    // Threads recorded before route as they did.
    const rules = effects.patched(ROUTING_FINDS_AGENTS);
    // Slash commands (/review, /research, /subconscious run, /board); threads recorded before read them as text.
    const options = { rules, commands: isSlashCommand(message.text) && effects.patched(THREAD_SLASH_COMMANDS) };
    let decision = decide(setup, message, memory.stickyAgent, replyTarget, skip, options);
    if (rules && decision.route?.reason === 'default' && classifierOn(setup)) {
      const classified = await effects.classify(setup, message, memory.threadId);
      if (classified.answer)
        decision = decide(setup, message, memory.stickyAgent, replyTarget, skip, { rules, classified: classified.answer });
      if (decision.kind === 'run' && classified.usage) {
        decision.routing = {
          agent: decision.agent,
          reason: decision.route?.reason ?? 'default',
          ...decision.routing,
          usage: classified.usage,
        };
      }
    }
    return decision;
  }
}
