import { type Server } from 'node:http';
import { Client } from '@temporalio/client';
import { createActivities } from '../activities';
import { activityDepsFromConfig } from './activity-deps';
import { createServerApp } from '../server/app';
import { type RequestHandler } from 'express';
import { apiMountsFromConfig } from '../server/api/from-config';
import { createGitHubWebhookRouter } from '../server/github-webhooks';
import { slackFrontEndFromConfig } from '../server/slack';
import { readSecret, type LoadedConfig } from './config';
import { loadConfigForProcess } from './process-config';
import { createLogger, installTemporalRuntime, type Logger } from './logger';
import { externalServiceChecks } from './external-checks';
import { ExternalServices } from './external-services';
import { listenError, reportStartupFailure } from './startup-errors';
import { connectTemporal, pingTemporal } from './temporal';
import { ensureTemporal } from './temporal-endpoint';
import { connectWorker, createSwitchboardWorker } from './worker';

/**
 * `npm start`: the embedded Temporal (unless `TEMPORAL_ADDRESS` is set), the worker and
 * the HTTP server in one process. Ctrl-C stops all three, in reverse order.
 */
/** Where GitHub delivers webhooks. */
export const GITHUB_WEBHOOK_PATH = '/webhooks/github';

export async function main(): Promise<void> {
  const loaded = loadConfigForProcess();
  if (!loaded) return;
  const { config, baseDir } = loaded;
  const logger = createLogger({ level: config.log.level, format: config.log.format });
  installTemporalRuntime(logger);

  const stops: Array<() => Promise<void>> = [];
  const shutdown = onceShutdown(logger, stops);
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    const endpoint = await ensureTemporal(config, baseDir, logger);
    stops.unshift(() => endpoint.stop());

    const connection = await connectTemporal({ address: endpoint.address, timeoutMs: 10_000 });
    stops.unshift(() => connection.close());
    const client = new Client({ connection, namespace: config.temporal.namespace });

    const nativeConnection = await connectWorker(endpoint.address);
    stops.unshift(() => nativeConnection.close());
    const deps = activityDepsFromConfig(loaded, logger, client);
    const worker = await createSwitchboardWorker({
      connection: nativeConnection,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      activities: createActivities(deps),
      logger,
    });
    const workerDone = worker.run();
    stops.unshift(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await workerDone.catch(() => undefined);
    });
    workerDone.catch((error: unknown) => logger.error({ err: error }, 'worker failed'));

    const mounts = [...frontEnds(loaded, client, logger), ...apiMountsFromConfig(loaded, client, logger, endpoint.uiUrl)];
    const slack = slackFrontEndFromConfig(loaded, client, logger);
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
      health: {
        namespace: config.temporal.namespace,
        taskQueue: config.temporal.taskQueue,
        pingTemporal: () => pingTemporal(connection, config.temporal.namespace),
        workerState: () => worker.getState(),
        ...(deps.sandboxHost ? { sandbox: () => deps.sandboxHost!.readiness() } : {}),
        services: () => services.statuses(),
      },
    });
    const server = await listen(app, config.http.port, config.http.host);
    stops.unshift(() => closeServer(server));

    const apiUrl = config.http.publicUrl ?? `http://${config.http.host}:${config.http.port}`;
    logger.info({ temporal: endpoint.address, mode: endpoint.mode }, 'Temporal connected');
    logger.info(
      `Switchboard is up. API ${apiUrl}/api/v1, MCP ${apiUrl}/mcp (health: ${apiUrl}/healthz)` +
        (endpoint.uiUrl ? `, Temporal Web UI ${endpoint.uiUrl}` : ''),
    );
  } catch (error) {
    reportStartupFailure(logger, error);
    await shutdown('startup failure');
    process.exitCode = 1;
  }
}

/** The front ends whose secrets are configured; each is skipped (and says so) when they are not. */
function frontEnds(loaded: LoadedConfig, client: Client, logger: Logger) {
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
      }),
    });
  } else {
    logger.info('GitHub webhooks are off: set GITHUB_WEBHOOK_SECRET to receive them');
  }
  return mounts;
}

function onceShutdown(logger: Logger, stops: Array<() => Promise<void>>) {
  let started = false;
  return async (why: string) => {
    if (started) return;
    started = true;
    logger.info({ why }, 'shutting down');
    for (const stop of stops) {
      try {
        await stop();
      } catch (error) {
        logger.warn({ err: error }, 'error during shutdown');
      }
    }
  };
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

if (require.main === module) void main();
