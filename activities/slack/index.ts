import { type Logger } from '../../infra/logger';
import { createConsoleStatusActivities } from '../status/console-status';
import { type EffectResult, type ReplyInput, type StatusCardInput } from '../status/types';
import { createSlackStatusActivities, type SlackStatusDeps } from './status-activities';

export { createSlackStatusActivities, type SlackStatusDeps } from './status-activities';
export { createSlackWebClient, classifySlackError, type SlackWebClient, type SlackClientOptions } from './slack-client';
export { renderCard, STOP_ACTION_ID, CARD_EVENT_TYPE, REPLY_EVENT_TYPE } from './card-blocks';
export { formatForSlack, splitForSlack, SLACK_TEXT_LIMIT } from './reply-format';

export interface StatusActivityDeps {
  logger: Logger;
  /** Slack delivery; without it a Slack target is logged like any other. */
  slack?: Omit<SlackStatusDeps, 'logger'>;
}

/**
 * The one `statusCard` / `deliverReply` pair the worker registers: Slack targets go to
 * Slack (when configured), every other target to the console implementation.
 */
export function createStatusActivities(deps: StatusActivityDeps) {
  const console = createConsoleStatusActivities({ logger: deps.logger });
  const slack = deps.slack ? createSlackStatusActivities({ ...deps.slack, logger: deps.logger }) : undefined;
  return {
    statusCard(input: StatusCardInput): Promise<EffectResult> {
      return slack && input.replyTarget.kind === 'slack' ? slack.statusCard(input) : console.statusCard(input);
    },
    deliverReply(input: ReplyInput): Promise<EffectResult> {
      return slack && input.replyTarget.kind === 'slack' ? slack.deliverReply(input) : console.deliverReply(input);
    },
  };
}
