import { type Logger } from '../../infra/logger';
import type {
  EffectResult,
  PlanCardInput,
  ReplyInput,
  StatusCardInput,
  UnitThreadInput,
  UnitThreadResult,
} from '../../workflows/contracts/status';
import { CARD_EVENT_TYPE, PLAN_CARD_EVENT_TYPE, renderCard, REPLY_EVENT_TYPE, UNIT_THREAD_EVENT_TYPE } from './card-blocks';
import { MarkedPoster, markerKey } from './marked-messages';
import { formatForSlack, splitForSlack } from './reply-format';
import { classifySlackError, retryLater, type SlackWebClient } from './slack-client';

export interface SlackStatusDeps {
  /** The Web API client, or a factory (read lazily, so a missing token fails only Slack work). */
  client: SlackWebClient | (() => SlackWebClient);
  logger: Logger;
  /** Temporal Web UI base URL for the card's link to the run (no link when unset). */
  webUiBaseUrl?: string;
  namespace: string;
  /** The run's signed session page link (infra/session-links.ts); no link when unset. */
  sessionLink?: (runId: string) => string | undefined;
}

type SlackTarget = { kind: 'slack'; team: string; channel: string; threadTs: string };

/**
 * `statusCard` and `deliverReply` for Slack threads. The card is one message per run,
 * posted at most once (metadata carries the effect key) and then edited with `chat.update`
 * (repeatable). The answer is posted at most once, split at Slack's limits.
 */
export function createSlackStatusActivities(deps: SlackStatusDeps) {
  const client = typeof deps.client === 'function' ? deps.client : () => deps.client as SlackWebClient;
  const poster = new MarkedPoster(client);

  const webUiUrl = (runId: string) =>
    deps.webUiBaseUrl
      ? `${deps.webUiBaseUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(deps.namespace)}/workflows/${encodeURIComponent(runId)}`
      : undefined;

  return {
    async statusCard(input: StatusCardInput): Promise<EffectResult> {
      const target = slackTarget(input.replyTarget);
      const link = input.webUiUrl ?? webUiUrl(input.runId);
      // Computed here from the run id, so the workflow (and its recorded histories) need no change.
      const session = deps.sessionLink?.(input.runId);
      const card = renderCard({
        status: input.status,
        final: input.final,
        ...(input.answer ? { answer: input.answer } : {}),
        ...(link ? { webUiUrl: link } : {}),
        ...(session ? { sessionUrl: session } : {}),
      });
      const marker = { event_type: CARD_EVENT_TYPE, event_payload: { effect_key: input.effectKey, run_id: input.runId } };
      if (input.earlierKeys?.length) {
        // Earlier posts of this card were never confirmed: any that turned up is edited, and the
        // card is posted afresh only when none is there.
        const found: Array<{ key: string; ts: string }> = [];
        for (const key of [...input.earlierKeys, input.effectKey]) {
          const ts = await poster.find(target.channel, target.threadTs, (m) => m.event_type === CARD_EVENT_TYPE && markerKey(m) === key);
          if (ts) found.push({ key, ts });
        }
        if (found.length > 0) {
          try {
            for (const { key, ts } of found) {
              await client().chat.update({
                channel: target.channel,
                ts,
                text: card.text,
                blocks: card.blocks as never,
                metadata: { ...marker, event_payload: { ...marker.event_payload, effect_key: key } },
              });
            }
            return { status: 'confirmed' };
          } catch (error) {
            const failure = classifySlackError(error);
            if (failure.kind !== 'refused') throw retryLater(failure, 'updating the status card');
            return { status: 'refused', reason: failure.reason };
          }
        }
      }
      const posted = await poster.post({ channel: target.channel, threadTs: target.threadTs, key: input.effectKey, marker, ...card });
      if (posted.status === 'unconfirmed' || posted.status === 'refused') {
        deps.logger.warn({ runId: input.runId, effectKey: input.effectKey, reason: posted.reason }, `status card ${posted.status}`);
        return { status: posted.status, reason: posted.reason };
      }
      if (posted.status === 'posted') return { status: 'confirmed' };
      try {
        await client().chat.update({
          channel: target.channel,
          ts: posted.ts,
          text: card.text,
          blocks: card.blocks as never,
          metadata: marker,
        });
        return { status: 'confirmed' };
      } catch (error) {
        const failure = classifySlackError(error);
        if (failure.kind !== 'refused') throw retryLater(failure, 'updating the status card');
        // Someone deleted the card: the next update looks for it again rather than using a dead ts.
        poster.forget(input.effectKey);
        deps.logger.warn({ runId: input.runId, reason: failure.reason }, 'status card update refused');
        return { status: 'refused', reason: failure.reason };
      }
    },

    /** The plan's card: posted once in the plan's thread (its marker names the plan), then edited in place. */
    async planCard(input: PlanCardInput): Promise<EffectResult> {
      const target = slackTarget(input.replyTarget);
      const text = formatForSlack(input.text.trim());
      const marker = { event_type: PLAN_CARD_EVENT_TYPE, event_payload: { effect_key: input.effectKey, plan_id: input.planId } };
      const posted = await poster.post({ channel: target.channel, threadTs: target.threadTs, key: input.effectKey, marker, text });
      if (posted.status === 'unconfirmed' || posted.status === 'refused') {
        deps.logger.warn({ planId: input.planId, reason: posted.reason }, `plan card ${posted.status}`);
        return { status: posted.status, reason: posted.reason };
      }
      if (posted.status === 'posted') return { status: 'confirmed' };
      try {
        await client().chat.update({ channel: target.channel, ts: posted.ts, text, metadata: marker });
        return { status: 'confirmed' };
      } catch (error) {
        const failure = classifySlackError(error);
        if (failure.kind !== 'refused') throw retryLater(failure, 'updating the plan card');
        poster.forget(input.effectKey);
        return { status: 'refused', reason: failure.reason };
      }
    },

    /**
     * A plan unit's own thread: a top-level message of the plan's channel, posted once (its marker
     * names the unit, which is how the Slack door knows a reply there is for the unit).
     */
    async openUnitThread(input: UnitThreadInput): Promise<UnitThreadResult> {
      const target = slackTarget(input.replyTarget);
      const marker = {
        event_type: UNIT_THREAD_EVENT_TYPE,
        event_payload: { effect_key: input.effectKey, unit_id: input.unitId, plan_id: input.planId },
      };
      const posted = await poster.post({
        channel: target.channel,
        // Looked for among the messages since the plan's own thread began.
        after: target.threadTs,
        key: input.effectKey,
        marker,
        text: formatForSlack(input.text),
      });
      if (posted.status === 'unconfirmed' || posted.status === 'refused') return { status: posted.status, reason: posted.reason };
      return { status: 'confirmed', replyTarget: { kind: 'slack', team: target.team, channel: target.channel, threadTs: posted.ts } };
    },

    async deliverReply(input: ReplyInput): Promise<EffectResult> {
      const target = slackTarget(input.replyTarget);
      const parts = splitForSlack(formatForSlack(input.text.trim() || '(no answer)'));
      for (const [index, part] of parts.entries()) {
        const payload: Record<string, string | number> =
          parts.length === 1 ? { effect_key: input.effectKey } : { effect_key: input.effectKey, part: index + 1, parts: parts.length };
        const key = parts.length === 1 ? input.effectKey : `${input.effectKey}#${index + 1}`;
        const posted = await poster.post({
          channel: target.channel,
          threadTs: target.threadTs,
          key,
          marker: { event_type: REPLY_EVENT_TYPE, event_payload: payload },
          text: part,
        });
        if (posted.status === 'unconfirmed' || posted.status === 'refused') {
          deps.logger.warn({ effectKey: input.effectKey, part: index + 1, reason: posted.reason }, `reply ${posted.status}`);
          return { status: posted.status, reason: `part ${index + 1} of ${parts.length}: ${posted.reason}` };
        }
      }
      return { status: 'confirmed' };
    },
  };
}

function slackTarget(target: StatusCardInput['replyTarget']): SlackTarget {
  if (target.kind !== 'slack') throw new Error(`the Slack status activities got a ${target.kind} target`);
  return target;
}
