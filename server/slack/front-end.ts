import { App, ExpressReceiver, type Logger as BoltLogger } from '@slack/bolt';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { Router } from 'express';
import { CARD_EVENT_TYPE, PLAN_CARD_EVENT_TYPE, STOP_ACTION_ID, createSlackWebClient, type SlackWebClient } from '../../activities/slack';
import { namesRefusal, parseDirectives, type AdmissionFacts, type AgentsConfig } from '../../agents';
import { createAgentSetupActivities } from '../../activities/agents/agent-setup';
import { createControlAdmission } from '../control-admission';
import { type SlackConfig } from '../../infra/config/slack-section';
import { SLACK_EVENTS, type SlackEventName } from '../../activities/slack/app-needs';
import { readSecret } from '../../infra/config/secrets';
import { SwitchboardError } from '../../infra/errors';
import { type Logger } from '../../infra/logger';
import { messageSignal, stopSignal, threadWorkflowType } from '../../workflows/contracts';
import { boltLogger } from './bolt-logger';
import { rejectSkewedSlackRequests } from './request-age';
import { routeSlackMessage, slackIdProblem, slackThreadId, type RoutedSlackMessage, type SlackMessageEvent } from './event-routing';
import { currentRunOf, mayStopRun, type StopAccessOptions } from './stop-control';
import { replyToUnit, UnitThreads } from './unit-threads';
import { slackNames } from './people';

export interface SlackFrontEndOptions {
  /** The Temporal client threads and runs are signalled through. */
  client: Client;
  taskQueue: string;
  config: { slack: SlackConfig; agents: AgentsConfig; customAgentsDir?: string };
  logger: Logger;
  /** Defaults to SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET and SLACK_APP_TOKEN from the environment. */
  secrets?: { botToken?: string; signingSecret?: string; appToken?: string };
  /** Event ids remembered for dedupe in this process (default 10 000). */
  rememberEvents?: number;
  /** The admission's facts (infra/door-admission.ts); built from `config.agents` when omitted. */
  facts?: () => Promise<AdmissionFacts>;
}

export interface SlackFrontEnd {
  /** HTTP mode: the router serving `config.slack.eventsPath`; mount it on the server app. Undefined in Socket Mode. */
  router?: Router;
  /**
   * Calls `auth.test` and, in Socket Mode, connects the socket. Until it succeeds the router
   * answers 503 (Slack redelivers); call it again after a failure (the caller retries).
   */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The Slack front end: each request is verified (a timestamp within five minutes either
 * way, then Bolt's signature check; else 401), acknowledged at once, and the handlers then signal Temporal: a
 * mention or DM signal-with-starts its thread (whose admission decides what runs), a thread
 * reply continues it (the thread admits a steer of its run), the stop reaction and the Stop
 * button stop the run once the admission says this person may (its requester, or an operator). Retries and duplicate
 * event ids are dropped here, and the thread drops repeats of a message id as well.
 */
export function createSlackFrontEnd(options: SlackFrontEndOptions): SlackFrontEnd {
  const { slack } = options.config;
  const botToken = options.secrets?.botToken ?? readSecret('slackBotToken');
  const signingSecret = options.secrets?.signingSecret ?? readSecret('slackSigningSecret');
  const appToken = options.secrets?.appToken ?? readSecret('slackAppToken');
  if (!botToken) throw new SwitchboardError('config_invalid', 'SLACK_BOT_TOKEN is not set');
  const logger = boltLogger(options.logger);
  const clientOptions = { slackApiUrl: slack.apiUrl, retryConfig: { retries: 2 }, timeout: slack.requestTimeoutMs };
  let router: Router | undefined;
  let app: App;
  if (slack.mode === 'socket') {
    if (!appToken)
      throw new SwitchboardError('config_invalid', 'Socket Mode needs SLACK_APP_TOKEN (an app-level token with connections:write)');
    app = new App({ token: botToken, appToken, socketMode: true, clientOptions, logger, deferInitialization: true });
  } else {
    if (!signingSecret) throw new SwitchboardError('config_invalid', 'SLACK_SIGNING_SECRET is not set');
    router = Router();
    // Before Bolt's own verification, which checks only the past.
    router.post(slack.eventsPath, rejectSkewedSlackRequests(options.logger.child({ component: 'slack' })));
    const receiver = new ExpressReceiver({ signingSecret, endpoints: slack.eventsPath, router, logger, processBeforeResponse: false });
    app = new App({ token: botToken, receiver, clientOptions, logger, deferInitialization: true });
  }
  const reader = createSlackWebClient({ token: botToken, apiUrl: slack.apiUrl, timeoutMs: slack.requestTimeoutMs });
  registerHandlers(app, options, reader, logger);
  let initialised = false;
  let started = false;
  return {
    ...(router ? { router: untilStarted(router, slack.eventsPath, () => started) } : {}),
    async start() {
      if (!initialised) await app.init();
      initialised = true;
      if (slack.mode === 'socket') await app.start();
      started = true;
    },
    async stop() {
      if (slack.mode === 'socket' && started) await app.stop();
      started = false;
    },
  };
}

/**
 * Bolt cannot handle an event before `auth.test` has told it who the bot is; until then
 * Slack's deliveries get a 503, and Slack retries them.
 */
function untilStarted(router: Router, eventsPath: string, started: () => boolean): Router {
  const gate = Router();
  gate.post(eventsPath, (_req, res, next) => {
    if (started()) return next();
    res.status(503).set('retry-after', '10').json({ error: 'slack_not_ready', message: 'Slack auth.test has not succeeded yet' });
  });
  gate.use(router);
  return gate;
}

/** The listened-to event names, keyed by themselves: a name not in the app's list does not compile. */
const SLACK_EVENT = Object.fromEntries(Object.keys(SLACK_EVENTS).map((name) => [name, name])) as { [K in SlackEventName]: K };

function registerHandlers(app: App, options: SlackFrontEndOptions, reader: SlackWebClient, logger: BoltLogger): void {
  const seen = new Set<string>();
  const limit = options.rememberEvents ?? 10_000;
  const fromConfig = createAgentSetupActivities({
    config: options.config.agents,
    ...(options.config.customAgentsDir ? { customAgentsDir: options.config.customAgentsDir } : {}),
  });
  const facts = options.facts ?? (() => fromConfig.loadAgentSetup());
  const access: StopAccessOptions = { client: options.client, control: createControlAdmission({ client: options.client, facts }) };
  const log = options.logger.child({ component: 'slack' });
  const unitThreads = new UnitThreads(reader);

  // Events are acknowledged by Bolt before this runs; a redelivery (X-Slack-Retry-Num) or a
  // repeated event id stops here, so each event is signalled once per process.
  app.use(async ({ body, context, next }) => {
    const eventId = (body as { event_id?: string }).event_id;
    if (eventId) {
      if (seen.has(eventId)) {
        log.info({ eventId, retryNum: context.retryNum }, 'duplicate Slack event ignored');
        return;
      }
      seen.add(eventId);
      if (seen.size > limit) seen.delete(seen.values().next().value!);
    }
    try {
      await next();
    } catch (error) {
      // Forgotten, so a redelivery of an event that could not be signalled may try again.
      if (eventId) seen.delete(eventId);
      throw error;
    }
  });

  const nameOf = slackNames(reader);
  const onMessage = async ({ event, body, context }: { event: unknown; body: unknown; context: { botUserId?: string } }) => {
    const envelope = body as { team_id: string; event_id: string };
    const routed = routeSlackMessage(event as SlackMessageEvent, {
      teamId: envelope.team_id,
      eventId: envelope.event_id,
      ...(context.botUserId ? { botUserId: context.botUserId } : {}),
    });
    if (routed.kind === 'ignore') {
      const level = routed.malformed ? 'warn' : 'debug';
      return void log[level]({ eventId: envelope.event_id, why: routed.why }, 'Slack message ignored');
    }
    // A reply in a plan unit's own thread is for that unit: it steers or stops it, through the admission.
    const reply = event as SlackMessageEvent;
    const unitId =
      reply.thread_ts && reply.thread_ts !== reply.ts
        ? // Slack not answering (a 429) must not drop the reply: it goes on as an ordinary thread reply.
          await unitThreads.unitOf(reply.channel, reply.thread_ts, context.botUserId).catch((error: unknown) => {
            log.warn({ eventId: envelope.event_id, err: error }, 'could not tell whether a Slack thread is a unit’s');
            return undefined;
          })
        : undefined;
    if (unitId && reply.user)
      return replyToUnit(
        { client: options.client, control: access.control, reader, logger: log },
        { unitId, userId: reply.user, channel: reply.channel, ts: reply.ts, text: routed.message.text },
      );
    // The person's name rides with the message: cards, records and session pages show it, not the id.
    const name = await nameOf(routed.message.requester.id);
    if (name) routed.message.requester.displayName ??= name;
    // An agent or a model nobody has is refused here, before a thread exists; only the person sees it.
    const unknown = namesRefusal(await facts(), parseDirectives(routed.message.text).directives);
    if (unknown) {
      const { channel, ts, thread_ts: threadTs } = event as SlackMessageEvent;
      await tell(reader, channel, routed.message.requester.id, unknown.message, threadTs ?? ts);
      return void log.info(
        { eventId: envelope.event_id, threadId: routed.threadId, code: unknown.code },
        'Slack message refused at the door',
      );
    }
    await signalThread(options, routed);
    log.info({ eventId: envelope.event_id, threadId: routed.threadId, kind: routed.kind }, 'Slack message sent to its thread');
  };
  // The event names are the app's one list (activities/slack/app-needs.ts), which the manifest subscribes to.
  app.event(SLACK_EVENT.app_mention, onMessage);
  app.event(SLACK_EVENT.message, onMessage);

  app.event(SLACK_EVENT.reaction_added, async ({ event, body, context }) => {
    if (event.reaction !== options.config.slack.stopReaction || event.item.type !== 'message') return;
    const { channel, ts } = event.item;
    const teamId = (body as { team_id: string }).team_id;
    const malformed = slackIdProblem(teamId, channel, ts);
    if (malformed) return void log.warn({ why: malformed }, 'Slack reaction ignored');
    const card = await cardOf(reader, channel, ts).catch(() => undefined);
    if (card?.runId)
      return void (await stopRun(options, access, reader, {
        runId: card.runId,
        userId: event.user,
        channel,
        how: 'the stop reaction on the card',
      }));
    // A plan's card: the plan is stopped (its running units with it), through the admission.
    if (card?.planId) return stopPlan(options, access, reader, { planId: card.planId, userId: event.user, channel });
    // A reaction on the request names its thread (the request's ts is the thread's root).
    const threadTs = (await threadRootOf(reader, channel, ts).catch(() => undefined)) ?? ts;
    // In a plan unit's own thread, the stop reaction stops that unit (through the admission).
    const unitId = await unitThreads.unitOf(channel, threadTs, context.botUserId).catch(() => undefined);
    if (unitId)
      return replyToUnit(
        { client: options.client, control: access.control, reader, logger: log },
        { unitId, userId: event.user, channel, ts, text: 'stop: the stop reaction in its thread' },
      );
    const threadId = slackThreadId(teamId, channel, threadTs);
    const current = await currentRunOf(options.client, threadId);
    if (!current) return void log.info({ threadId }, 'stop reaction on a thread with no running run');
    const decision = await mayStopRun(access, current, event.user, channel);
    if (!decision.ok) return void (await tell(reader, channel, event.user, decision.message));
    await options.client.workflow.getHandle(threadId).signal(stopSignal, { by: event.user, reason: 'the stop reaction on the request' });
    log.info({ threadId, runId: current, by: event.user }, 'run stopped from Slack');
  });

  app.action(STOP_ACTION_ID, async ({ ack, body, action }) => {
    await ack();
    const runId = (action as { value?: string }).value;
    const channel = (body as { channel?: { id?: string } }).channel?.id;
    if (!runId) return;
    await stopRun(options, access, reader, { runId, userId: body.user.id, ...(channel ? { channel } : {}), how: 'the Stop button' });
  });

  app.error(async (error) => {
    logger.error(`Slack handler failed: ${error instanceof Error ? error.message : String(error)}`);
  });
}

async function signalThread(options: SlackFrontEndOptions, routed: Exclude<RoutedSlackMessage, { kind: 'ignore' }>): Promise<void> {
  const { client, taskQueue } = options;
  if (routed.kind === 'start') {
    await client.workflow.signalWithStart(threadWorkflowType, {
      workflowId: routed.threadId,
      taskQueue,
      args: [routed.input],
      signal: messageSignal,
      signalArgs: [routed.message],
      staticSummary: `Slack thread in ${routed.input.replyTarget.kind === 'slack' ? routed.input.replyTarget.channel : '?'}`,
    });
    return;
  }
  try {
    await client.workflow.getHandle(routed.threadId).signal(messageSignal, routed.message);
  } catch (error) {
    // A reply in a thread Switchboard never started: not ours to answer.
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}

async function stopRun(
  options: SlackFrontEndOptions,
  access: StopAccessOptions,
  reader: SlackWebClient,
  request: { runId: string; userId: string; channel?: string; how: string },
): Promise<void> {
  const decision = await mayStopRun(access, request.runId, request.userId, request.channel);
  if (!decision.ok) {
    if (request.channel) await tell(reader, request.channel, request.userId, decision.message);
    return;
  }
  await options.client.workflow.getHandle(request.runId).signal(stopSignal, { by: request.userId, reason: request.how });
  options.logger.info({ runId: request.runId, by: request.userId, how: request.how }, 'run stopped from Slack');
}

/** The run (or plan) a message names when it is one of our status cards (a run's) or a plan's card: its metadata carries the id. */
async function cardOf(reader: SlackWebClient, channel: string, ts: string): Promise<{ runId?: string; planId?: string }> {
  const found = await reader.conversations.replies({ channel, ts, include_all_metadata: true, limit: 1, inclusive: true });
  const metadata = found.messages?.find((candidate) => candidate.ts === ts)?.metadata;
  const payload: Record<string, unknown> | undefined = metadata?.event_payload;
  const runId = metadata?.event_type === CARD_EVENT_TYPE ? payload?.run_id : undefined;
  const planId = metadata?.event_type === PLAN_CARD_EVENT_TYPE ? payload?.plan_id : undefined;
  return {
    ...(typeof runId === 'string' ? { runId } : {}),
    ...(typeof planId === 'string' && planId.startsWith('plan:') ? { planId } : {}),
  };
}

/** The stop reaction on a plan's card: the plan stops (its running units settle stopped), if the admission says this person may. */
async function stopPlan(
  options: SlackFrontEndOptions,
  access: StopAccessOptions,
  reader: SlackWebClient,
  request: { planId: string; userId: string; channel: string },
): Promise<void> {
  const decision = await access.control.decide(
    { surface: 'slack', userId: request.userId, channelId: request.channel },
    request.planId,
    'stop',
  );
  if (!decision.ok) return void (await tell(reader, request.channel, request.userId, decision.message));
  if (decision.description.status.name !== 'RUNNING')
    return void (await tell(reader, request.channel, request.userId, 'That plan has already ended.'));
  await options.client.workflow
    .getHandle(request.planId)
    .signal(stopSignal, { by: request.userId, reason: "the stop reaction on the plan's card" });
  options.logger.info({ planId: request.planId, by: request.userId }, 'plan stopped from Slack');
}

async function threadRootOf(reader: SlackWebClient, channel: string, ts: string): Promise<string | undefined> {
  const found = await reader.conversations.replies({ channel, ts, limit: 1, inclusive: true });
  return found.messages?.find((candidate) => candidate.ts === ts)?.thread_ts;
}

/** A refusal only the person sees (in the thread it answers, when there is one). */
async function tell(reader: SlackWebClient, channel: string, user: string, text: string, threadTs?: string): Promise<void> {
  await reader.chat.postEphemeral({ channel, user, text, ...(threadTs ? { thread_ts: threadTs } : {}) }).catch(() => undefined);
}

/** Why `start()` failed, in the operator's terms (for `/healthz` and the log). */
export function describeSlackStartError(error: unknown, apiUrl: string): string {
  const failure = error as { code?: string; data?: { error?: string }; original?: Error; statusCode?: number; message?: string };
  switch (failure?.code) {
    case 'slack_webapi_platform_error':
      return failure.data?.error === 'invalid_auth' || failure.data?.error === 'not_authed' || failure.data?.error === 'token_revoked'
        ? `Slack refused SLACK_BOT_TOKEN (${failure.data.error})`
        : `Slack answered auth.test with ${failure.data?.error ?? 'an error'}`;
    case 'slack_webapi_request_error':
      return `Slack API at ${apiUrl} is unreachable (${causeOf(failure.original)})`;
    case 'slack_webapi_http_error':
      return `Slack API at ${apiUrl} answered HTTP ${failure.statusCode}`;
    case 'slack_webapi_rate_limited_error':
      return `Slack API at ${apiUrl} is rate limiting us`;
    default:
      return (failure?.message ?? String(error)).split('\n')[0];
  }
}

/** The low-level reason behind a request error (`connect ECONNREFUSED 127.0.0.1:9`). */
function causeOf(error: Error | undefined): string {
  let deepest: unknown = error;
  while (deepest instanceof Error && deepest.cause instanceof Error) deepest = deepest.cause;
  return deepest instanceof Error ? deepest.message.split('\n')[0] : 'no answer';
}
