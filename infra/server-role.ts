import { type Server } from 'node:http';
import { type Client, type Connection } from '@temporalio/client';
import { type Worker } from '@temporalio/worker';
import { type RequestHandler } from 'express';
import { type ActivityDeps } from '../activities';
import { createServerApp } from '../server/app';
import { apiMountsFromConfig, doorFromConfig } from '../server/api/from-config';
import { codecMountFromConfig } from '../server/codec/from-config';
import { createGitHubWebhookRouter } from '../server/github-webhooks';
import { GITHUB_WEBHOOK_PATH } from '../server/github-event-routing';
import { type FrontEndMetrics } from '../server/metrics';
import { sessionMountFromConfig } from '../server/session/from-config';
import { slackFrontEndFromConfig } from '../server/slack';
import { readSecret, type LoadedConfig } from './config';
import { externalServiceChecks } from './external-checks';
import { ExternalServices } from './external-services';
import { type Logger } from './logger';
import { listenError } from './startup-errors';
import { cachedStuck } from './stuck';
import { pingTemporal } from './temporal';
import { type TemporalEndpoint } from './temporal-endpoint';
import { createDoorAdmission, type DoorAdmission } from './door-admission';
import { createRepoSettingsReader } from '../activities/github/repo-settings';

export { GITHUB_WEBHOOK_PATH };

export interface ServerRoleContext {
  loaded: LoadedConfig;
  client: Client;
  connection: Connection;
  logger: Logger;
  deps: ActivityDeps;
  endpoint: TemporalEndpoint;
  /** Stops run first to last; this role's go in front. */
  stops: Array<() => Promise<void>>;
  /** The worker when this process runs one too (for /healthz). */
  worker: Worker | undefined;
  frontEndMetrics: FrontEndMetrics | undefined;
}

/**
 * The server role: the front ends (Slack, GitHub webhooks, the HTTP/MCP door), /healthz and the
 * external-service checks. Its own module, loaded by `main` only when the process serves, so a
 * worker-only process never loads Bolt, the MCP SDK or express (test/worker-imports.test.ts).
 */
export async function startServerRole(context: ServerRoleContext): Promise<void> {
  const { loaded, client, connection, logger, deps, endpoint, stops, worker, frontEndMetrics } = context;
  const { config } = loaded;
  // One cached look at stuck workflows, shared by /healthz and the metrics gauge.
  const stuck = cachedStuck(client);
  frontEndMetrics?.countStuck(stuck);
  // One admission for every door: the worker's own agent setup (and, when this process runs the
  // worker, its sandbox's readiness) and the GitHub actor gate (agents/admission.ts).
  const admission = createDoorAdmission({
    agents: deps.agents,
    identities: deps.github.identities,
    cacheSeconds: config.admission.github.cacheSeconds,
    logger,
    ...(worker && deps.sandboxHost ? { sandbox: () => deps.sandboxHost!.readiness() } : {}),
  });
  // One door for the API, MCP and the session pages' steer and stop.
  const door = doorFromConfig(loaded, client, endpoint.uiUrl, process.env, admission);
  const mounts = [
    ...frontEnds(loaded, client, logger, admission, deps),
    ...apiMountsFromConfig(loaded, client, logger, endpoint.uiUrl, process.env, admission, door),
  ];
  const session = sessionMountFromConfig(loaded, client, door, logger, endpoint.uiUrl, admission);
  if (session) {
    mounts.push(session.mount);
    stops.unshift(async () => session.hub.close());
  }
  const codec = codecMountFromConfig(loaded, logger, endpoint.uiUrl);
  if (codec) mounts.push(codec);
  const slack = slackFrontEndFromConfig(loaded, client, logger, admission);
  if (slack) {
    stops.unshift(() => slack.stop());
    if (slack.router) mounts.push({ path: '/', handler: slack.router });
    logger.info({ mode: config.slack.mode, path: config.slack.eventsPath }, 'Slack front end is on');
  }
  // Slack, GitHub and the model APIs may be down: each is retried in the background and
  // shown in /healthz, while Temporal, the worker and the other front ends serve.
  const services = new ExternalServices({
    logger,
    retry: { initialMs: config.externalServices.retryInitialMs, maxMs: config.externalServices.retryMaxMs },
  });
  stops.unshift(async () => services.stop());
  for (const check of await externalServiceChecks(config, deps, slack)) services.supervise(check);
  const app = createServerApp({
    mounts,
    client,
    logger,
    ...(frontEndMetrics ? { metrics: frontEndMetrics } : {}),
    health: {
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      pingTemporal: () => pingTemporal(connection, config.temporal.namespace),
      workerState: () => worker?.getState(),
      ...(worker && deps.sandboxHost ? { sandbox: () => deps.sandboxHost!.readiness() } : {}),
      services: () => services.statuses(),
      stuck,
    },
  });
  const server = await listen(app, config.http.port, config.http.host);
  stops.unshift(() => closeServer(server));
}

/** The front ends whose secrets are configured; each is skipped (and says so) when they are not. */
function frontEnds(loaded: LoadedConfig, client: Client, logger: Logger, admission: DoorAdmission, deps: ActivityDeps) {
  const { config } = loaded;
  const mounts: Array<{ path: string; handler: RequestHandler }> = [];
  const webhookSecret = readSecret('githubWebhookSecret');
  if (webhookSecret) {
    mounts.push({
      path: GITHUB_WEBHOOK_PATH,
      handler: createGitHubWebhookRouter({
        client,
        taskQueue: config.temporal.taskQueue,
        secret: webhookSecret,
        botLogin: config.github.botLogin,
        logger,
        maxBodyBytes: config.github.webhookMaxBodyBytes,
        admission,
        // The same reader (and per-commit cache) the worker's activities use, when this process runs both.
        settings:
          deps.github.settings ??
          createRepoSettingsReader({
            identities: deps.github.identities,
            repositories: config.repositories,
            defaultSeverity: config.review.addressSeverity,
          }),
      }),
    });
  } else {
    logger.info('GitHub webhooks are off: set GITHUB_WEBHOOK_SECRET to receive them');
  }
  return mounts;
}

function listen(app: ReturnType<typeof createServerApp>, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) => (error ? reject(listenError(error, host, port)) : resolve(server)));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
