import { type Logger } from '../../infra/logger';
import { createConsoleStatusActivities } from '../status/console-status';
import { createGitHubStatusActivities, type GitHubStatusDeps } from '../status/github-status';
import type {
  EffectResult,
  PlanCardInput,
  ReplyInput,
  StatusCardInput,
  UnitThreadInput,
  UnitThreadResult,
} from '../../workflows/contracts/status';
import { createSlackStatusActivities, type SlackStatusDeps } from './status-activities';

export { createSlackStatusActivities, type SlackStatusDeps } from './status-activities';
export { createSlackWebClient, classifySlackError, type SlackWebClient, type SlackClientOptions } from './slack-client';
export { renderCard, STOP_ACTION_ID, CARD_EVENT_TYPE, REPLY_EVENT_TYPE, PLAN_CARD_EVENT_TYPE, UNIT_THREAD_EVENT_TYPE } from './card-blocks';
export { formatForSlack, splitForSlack, SLACK_TEXT_LIMIT } from './reply-format';

export interface StatusActivityDeps {
  logger: Logger;
  /** Slack delivery; without it a Slack target is logged like any other. */
  slack?: Omit<SlackStatusDeps, 'logger'>;
  /** GitHub delivery for PR and issue conversations (the write identity); without it they are logged. */
  github?: Omit<GitHubStatusDeps, 'logger'>;
  /** The runs' signed session page links, for both kinds of card (none: cards carry no such link). */
  sessionLink?: (runId: string) => string | undefined;
}

/**
 * The one `statusCard` / `deliverReply` pair the worker registers: Slack targets go to
 * Slack and GitHub targets to the PR or issue (when configured), every other target to the
 * console implementation, which says it only logged them.
 */
export function createStatusActivities(deps: StatusActivityDeps) {
  const console = createConsoleStatusActivities({ logger: deps.logger });
  const session = deps.sessionLink ? { sessionLink: deps.sessionLink } : {};
  const slack = deps.slack ? createSlackStatusActivities({ ...session, ...deps.slack, logger: deps.logger }) : undefined;
  const github = deps.github ? createGitHubStatusActivities({ ...session, ...deps.github, logger: deps.logger }) : undefined;
  const pick = (target: ReplyInput['replyTarget']) =>
    (target.kind === 'slack' ? slack : undefined) ?? (target.kind === 'github' ? github : undefined) ?? console;
  return {
    statusCard(input: StatusCardInput): Promise<EffectResult> {
      return pick(input.replyTarget).statusCard(input);
    },
    deliverReply(input: ReplyInput): Promise<EffectResult> {
      return pick(input.replyTarget).deliverReply(input);
    },
    planCard(input: PlanCardInput): Promise<EffectResult> {
      return pick(input.replyTarget).planCard(input);
    },
    /** Only Slack opens a thread per unit; elsewhere the unit reports where the plan does (on GitHub, on its PR once it has one). */
    async openUnitThread(input: UnitThreadInput): Promise<UnitThreadResult> {
      if (input.replyTarget.kind === 'slack' && slack) return slack.openUnitThread(input);
      return { status: 'recorded', reason: 'only Slack opens a thread of its own for a plan unit' };
    },
  };
}
