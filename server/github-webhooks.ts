import { createHmac, timingSafeEqual } from 'node:crypto';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import express, { type NextFunction, type Request, type Response, Router } from 'express';
import { type Logger } from '../infra/logger';
import {
  isBotLogin,
  isWebhookEvent,
  malformedGitHubPayload,
  repositoryEvent,
  type RoutedGitHubEvent,
  routeGitHubEvent,
} from './github-event-routing';
import { conversationCommand, repositoryWork, type GitHubWorkDeps, type WorkOutcome } from './github-work';
import { createControlAdmission, type ControlAdmissionDoor } from './control-admission';
import type { RepoSettingsResult } from '../activities/github/repo-settings';
import { visibilityQuery } from '../infra/visibility';
import { type ActorGate } from '../activities/github/actor-gate';
import {
  activeAgents,
  getAgent,
  githubRequirement,
  lowestGitHubRequirement,
  namesRefusal,
  parseDirectives,
  roleAtLeast,
  type AdmissionFacts,
  type GitHubRole,
} from '../agents';
import type { ThreadMessage } from '../workflows/contracts';

/** An event for a ship unit: signalled only to a unit that is running. */
type UnitEvent = Extract<RoutedGitHubEvent, { startArgs?: undefined }>;

export interface GitHubWebhookOptions {
  client: Client;
  taskQueue: string;
  secret: string;
  botLogin: string;
  logger: Logger;
  /** Bodies above this are refused with 413 (default 5 MiB). */
  maxBodyBytes?: number;
  /** Answer GitHub within this many milliseconds even when Temporal is slow (default 900). */
  answerWithinMs?: number;
  /** How many delivery ids to remember for dedupe in this process (default 10 000). */
  rememberDeliveries?: number;
  /**
   * The actor gate (agents/admission.ts, activities/github/actor-gate.ts): the admission's facts,
   * and GitHub's answer for an actor's role on the repository. Required: no GitHub trigger reaches
   * a workflow unasked.
   */
  admission: {
    facts(): Promise<AdmissionFacts>;
    gate: Pick<ActorGate, 'roleOf' | 'refuse'> & Partial<Pick<ActorGate, 'react' | 'answer'>>;
  };
  /**
   * A repository's settings (its `.switchboard.yml` merged with the deployment's, cached per
   * commit): which review triggers, issue assignment and label start work there. Without it,
   * repository events (automatic reviews, issues assigned or labelled) start nothing.
   */
  settings?: { read(repo: string): Promise<RepoSettingsResult> };
  /** The steer/stop decision for conversation commands (default: the admission's, over this client). */
  control?: ControlAdmissionDoor;
}

/**
 * `POST /` for GitHub's webhooks: size limit (413), signature over the exact bytes (401,
 * nothing signalled), JSON (400), values that would become workflow ids (400, logged with the
 * reason, nothing signalled), then the actor gate, then one signal (or signal-with-start)
 * chosen by `routeGitHubEvent`. The gate reads the actor's role on the repository from GitHub
 * (cached): a mention from an actor below every agent's requirement there is refused here with
 * one 👎 on the comment and reaches no workflow; one that passes carries the role, and the thread's
 * admission checks it against the agent it routes to. A person's review reaches a unit only from
 * an actor admitted for `ship`. A delivery id seen before is acknowledged and does nothing again;
 * messages also carry it so the workflow can drop a repeat that reaches another process.
 */
export function createGitHubWebhookRouter(options: GitHubWebhookOptions): Router {
  const work: GitHubWorkDeps = {
    client: options.client,
    taskQueue: options.taskQueue,
    logger: options.logger,
    admission: options.admission,
    control: options.control ?? createControlAdmission({ client: options.client, facts: () => options.admission.facts() }),
    ...(options.settings ? { settings: options.settings } : {}),
    told: new Set(),
  };
  const seen = new Set<string>();
  const limit = options.rememberDeliveries ?? 10_000;
  const router = Router();

  router.post(
    '/',
    express.raw({ type: () => true, limit: options.maxBodyBytes ?? 5 * 1024 * 1024 }),
    async (req: Request, res: Response) => {
      const signature = req.get('x-hub-signature-256');
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (!signature || !signedBy(options.secret, raw, signature)) {
        return void res.status(401).json({ error: 'bad_signature' });
      }
      // Signed, but nothing to read: the sender's mistake, said as such (not a bad signature).
      if (raw.length === 0) return void res.status(400).json({ error: 'empty_body', reason: 'the signed body is empty' });
      const body = raw.toString('utf8');
      const event = req.get('x-github-event');
      const deliveryId = req.get('x-github-delivery');
      if (!event || !deliveryId) return void res.status(400).json({ error: 'missing_event_headers' });
      // GitHub's ping (a new hook, or a test delivery from `switchboard doctor`): signed, so the secret is right.
      if (event === 'ping') {
        options.logger.info({ deliveryId }, 'GitHub webhook ping: the signature checks with GITHUB_WEBHOOK_SECRET');
        return void res.status(202).json({ ok: true, pong: true });
      }
      // An event Switchboard does not act on (the App subscribes to GITHUB_WEBHOOK_EVENTS alone) is not even read.
      if (!isWebhookEvent(event)) return void res.status(202).json({ ok: true, ignored: true });
      let payload: unknown;
      try {
        payload = JSON.parse(body);
      } catch {
        return void res.status(400).json({ error: 'malformed_json' });
      }
      const malformed = malformedGitHubPayload(event, payload);
      if (malformed) {
        options.logger.warn({ deliveryId, event, reason: malformed }, 'GitHub webhook refused: malformed payload');
        return void res.status(400).json({ error: 'malformed_payload', reason: malformed });
      }
      if (seen.has(deliveryId)) return void res.status(202).json({ ok: true, duplicate: true });
      const routing = { botLogin: options.botLogin, deliveryId };
      const routed = routeGitHubEvent(event, payload as Record<string, unknown>, routing);
      // An automatic review or an issue's unit, when the repository's settings ask for one (beside a unit's own event).
      const repositoryWorkEvent = repositoryEvent(event, payload as Record<string, unknown>, routing);
      if (!routed && !repositoryWorkEvent) return void res.status(202).json({ ok: true, ignored: true });
      remember(seen, deliveryId, limit);
      const signalling = Promise.all([
        routed ? admitAndSignal(options, work, routed) : undefined,
        repositoryWorkEvent ? repositoryWork(work, repositoryWorkEvent) : undefined,
      ])
        .then(([first, second]) => first ?? second ?? false)
        .catch((error: unknown) => {
          // Forget it so GitHub's redelivery can try again.
          seen.delete(deliveryId);
          options.logger.error(
            { err: error, deliveryId, workflowId: routed?.workflowId, event },
            'could not signal the workflow for a GitHub event',
          );
          return 'failed' as const;
        });
      // GitHub wants an answer quickly; a slow Temporal gets a 503 while the signal carries on
      // (if it lands, the delivery id is kept, so a redelivery is still a no-op).
      const outcome = await Promise.race([signalling, delay(options.answerWithinMs ?? 900)]);
      if (outcome === 'failed') return void res.status(503).json({ error: 'signal_failed' });
      if (outcome === 'timeout') return void res.status(503).json({ error: 'signal_pending' });
      if (typeof outcome === 'object') return void res.status(202).json({ ok: true, refused: outcome.refused });
      res.status(202).json({ ok: true, ...(routed ? { workflowId: routed.workflowId } : {}), delivered: outcome });
    },
  );

  router.use((error: { type?: string; status?: number }, _req: Request, res: Response, next: NextFunction) => {
    if (error?.type === 'entity.too.large') return void res.status(413).json({ error: 'payload_too_large' });
    if (error?.status === 400) return void res.status(400).json({ error: 'bad_request' });
    next(error);
  });
  return router;
}

/** GitHub's `sha256=<hex>` HMAC of the exact bytes received, compared in constant time (an empty body included). */
function signedBy(secret: string, body: Buffer, signature: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The actor gate, then the signal. A mention's actor needs at least the lowest role any agent
 * on the repository admits (else: refused, one reaction, no workflow) and carries the role on;
 * a person's review needs the role `ship` needs (else: dropped). Other PR and check events are
 * GitHub's facts about the unit's PR, not a person's request, and pass.
 */
async function admitAndSignal(options: GitHubWebhookOptions, work: GitHubWorkDeps, routed: RoutedGitHubEvent): Promise<WorkOutcome> {
  const { gate } = options.admission;
  const facts = () => options.admission.facts();
  if (routed.startArgs) {
    const [message] = routed.args;
    const target = message.replyTarget?.kind === 'github' ? message.replyTarget : undefined;
    const repo = target?.repo ?? '';
    const login = message.requester.displayName ?? message.requester.id.replace(/^github:/, '');
    const loaded = await facts();
    const role = await gate.roleOf(repo, login);
    const agents = activeAgents(loaded.catalog, { featureFlags: loaded.config.featureFlags, surface: 'github' });
    const lowest = lowestGitHubRequirement(loaded.admission, repo, agents);
    if (!role || !roleAtLeast(role, lowest.role)) {
      const code = role ? 'actor_permission' : 'actor_unverified';
      options.logger.info({ repo, login, role, required: lowest.role, rule: lowest.rule, code }, 'GitHub trigger refused at the door');
      if (target?.commentId)
        await gate.refuse({ repo, commentId: target.commentId, ...(target.reviewComment ? { reviewComment: true } : {}) });
      return { refused: code };
    }
    // An agent or a model nobody has is refused here, before a thread exists: one 👎 and the sentence.
    const unknown = namesRefusal(loaded, parseDirectives(message.text).directives);
    if (unknown) {
      options.logger.info({ repo, login, code: unknown.code }, 'GitHub trigger refused at the door');
      if (target?.commentId)
        await gate.refuse({ repo, commentId: target.commentId, ...(target.reviewComment ? { reviewComment: true } : {}) });
      if (target)
        await gate.answer?.({
          repo,
          number: target.pullRequest,
          text: unknown.message,
          effectKey: `github-door/${message.messageId}/names`,
        });
      return { refused: unknown.code };
    }
    const admitted: ThreadMessage = { ...message, requester: { ...message.requester, githubRole: role } };
    // `@switchboard stop`, or words for a unit at work here: the conversation's running work, through the admission.
    const command = await conversationCommand(work, routed.workflowId, admitted);
    if (command !== undefined) return command;
    return signal(options, { ...routed, args: [admitted] });
  }
  const [event] = routed.args;
  if ('kind' in event && event.kind === 'review' && event.actor && !isBotLogin(event.actor, options.botLogin)) {
    const loaded = await facts();
    const ship = getAgent(loaded.catalog, 'ship');
    const role: GitHubRole | undefined = await gate.roleOf(event.repo, event.actor);
    const required = ship ? githubRequirement(loaded.admission, event.repo, ship).role : 'write';
    if (!role || !roleAtLeast(role, required)) {
      options.logger.info(
        { repo: event.repo, actor: event.actor, role, required },
        "a review by someone not admitted for ship is not the unit's work",
      );
      return { refused: role ? 'actor_permission' : 'actor_unverified' };
    }
  }
  return signal(options, routed);
}

/** Signals the routed workflow; unit events for a PR with no running unit are dropped (false). */
async function signal(options: GitHubWebhookOptions, routed: RoutedGitHubEvent): Promise<boolean> {
  if (routed.startArgs) {
    await options.client.workflow.signalWithStart(routed.workflowType, {
      workflowId: routed.workflowId,
      taskQueue: options.taskQueue,
      args: routed.startArgs,
      signal: routed.signal,
      signalArgs: routed.args,
    });
    return true;
  }
  if (await signalIfRunning(options.client, routed.workflowId, routed)) return true;
  // A unit started from a request (`unit:<repo>:<slug>`) owns its PR under another id: find it
  // by the PullRequest attribute it upserts when it opens the PR. Visibility lags a little
  // (about a second on the dev server), so an event in that window is dropped; the unit's
  // CI poll and its PR reads cover what it missed.
  const [event] = routed.args;
  if (typeof event?.repo !== 'string' || typeof event.number !== 'number') return false;
  const owner = await runningUnitFor(options.client, event.repo, event.number);
  return owner ? signalIfRunning(options.client, owner, routed) : false;
}

async function signalIfRunning(client: Client, workflowId: string, routed: UnitEvent): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).signal(routed.signal, ...routed.args);
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** The running unit that owns a PR, from visibility (the newest, should two ever overlap). */
export async function runningUnitFor(client: Client, repo: string, pullRequest: number): Promise<string | undefined> {
  const query = visibilityQuery({ SwitchboardKind: 'unit', Repo: repo, PullRequest: pullRequest, ExecutionStatus: 'Running' });
  for await (const execution of client.workflow.list({ query, pageSize: 1 })) return execution.workflowId;
  return undefined;
}

function delay(ms: number): Promise<'timeout'> {
  return new Promise((resolve) => setTimeout(() => resolve('timeout'), ms).unref());
}

function remember(seen: Set<string>, id: string, limit: number): void {
  seen.add(id);
  // A Set iterates in insertion order, so the first entry is the oldest.
  if (seen.size > limit) seen.delete(seen.values().next().value!);
}
