import { type Server } from 'node:http';
import { type Client } from '@temporalio/client';
import { type Worker } from '@temporalio/worker';
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
import { pingTemporal } from './temporal';
import { openTemporalClient, temporalTarget } from './temporal-connection';
import { runtimeExporterAddress, startMetricsEndpoint } from './metrics';
import { FrontEndMetrics } from '../server/metrics';
import { ensureTemporal } from './temporal-endpoint';
import { connectWorker, createSwitchboardWorker } from './worker';
import { dataConverterFromConfig } from './payloads';
import { cachedStuck } from './stuck';

/** Where GitHub delivers webhooks. */
export const GITHUB_WEBHOOK_PATH = '/webhooks/github';

/**
 * What this process runs. `npm start` runs everything (and starts the embedded Temporal when
 * none answers); `switchboard worker` and `switchboard server` run one role each and only
 * connect, so either scales by adding processes: they share nothing but Temporal.
 */
export interface Roles {
  worker: boolean;
  server: boolean;
  /** Start the embedded dev server when no Temporal is configured or answers. */
  embedded: boolean;
}

export const ALL_IN_ONE: Roles = { worker: true, server: true, embedded: true };

/** Starts the roles; Ctrl-C (or SIGTERM) stops them in reverse order. */
export async function main(roles: Roles = ALL_IN_ONE): Promise<void> {
  const loaded = loadConfigForProcess();
  if (!loaded) return;
  const { config } = loaded;
  const logger = createLogger({ level: config.log.level, format: config.log.format });
  const metricsOn = config.metrics.port !== undefined;
  // The runtime exports the worker's series on a private port; /metrics serves them with ours.
  const runtimeAddress = metricsOn && roles.worker ? await runtimeExporterAddress() : undefined;
  installTemporalRuntime(logger, runtimeAddress ? { prometheusBindAddress: runtimeAddress } : {});

  const stops: Array<() => Promise<void>> = [];
  const shutdown = onceShutdown(logger, stops);
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    const endpoint = await ensureTemporal(loaded, logger, { start: roles.embedded, registerAttributes: roles.server });
    stops.unshift(() => endpoint.stop());
    const target = temporalTarget(loaded, endpoint.address);
    const frontEndMetrics = metricsOn && roles.server ? new FrontEndMetrics() : undefined;
    const dataConverter = dataConverterFromConfig(config);
    const { client, connection } = await openTemporalClient(target, {
      timeoutMs: 10_000,
      dataConverter,
      ...(frontEndMetrics ? { interceptors: [frontEndMetrics.clientInterceptor()] } : {}),
    });
    stops.unshift(() => connection.close());
    const deps = activityDepsFromConfig(loaded, logger, client);

    let worker: Worker | undefined;
    if (roles.worker) {
      const nativeConnection = await connectWorker(target);
      stops.unshift(() => nativeConnection.close());
      const running = await createSwitchboardWorker({
        connection: nativeConnection,
        namespace: config.temporal.namespace,
        taskQueue: config.temporal.taskQueue,
        activities: createActivities(deps),
        bundlePath: process.env.SWITCHBOARD_WORKFLOW_BUNDLE || undefined,
        dataConverter,
        logger,
      });
      // The same activities on this host's own queue, where a workspace's later calls are sent.
      const hostWorker = await createSwitchboardWorker({
        connection: nativeConnection,
        namespace: config.temporal.namespace,
        taskQueue: deps.sandbox.hostTaskQueue!,
        activities: createActivities(deps),
        activitiesOnly: true,
        dataConverter,
        logger,
      });
      worker = running;
      const workerDone = Promise.all([running.run(), hostWorker.run()]);
      stops.unshift(async () => {
        for (const each of [running, hostWorker]) if (each.getState() === 'RUNNING') each.shutdown();
        await workerDone.catch(() => undefined);
      });
      workerDone.then(
        // A worker-only process has nothing left to do when its worker stops.
        () => (roles.server ? undefined : void shutdown('worker stopped')),
        (error: unknown) => {
          logger.error({ err: error }, 'worker failed');
          if (!roles.server) {
            process.exitCode = 1;
            void shutdown('worker failed');
          }
        },
      );
    }

    // One cached look at stuck workflows, shared by /healthz and the metrics gauge.
    const stuck = roles.server ? cachedStuck(client) : undefined;
    if (stuck) frontEndMetrics?.countStuck(stuck);
    if (roles.server) {
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
        ...(frontEndMetrics ? { metrics: frontEndMetrics } : {}),
        health: {
          namespace: config.temporal.namespace,
          taskQueue: config.temporal.taskQueue,
          pingTemporal: () => pingTemporal(connection, config.temporal.namespace),
          workerState: () => worker?.getState(),
          ...(worker && deps.sandboxHost ? { sandbox: () => deps.sandboxHost!.readiness() } : {}),
          services: () => services.statuses(),
          ...(stuck ? { stuck } : {}),
        },
      });
      const server = await listen(app, config.http.port, config.http.host);
      stops.unshift(() => closeServer(server));
    }

    if (metricsOn) {
      const metrics = await startMetricsEndpoint({
        host: config.metrics.host,
        port: config.metrics.port!,
        ...(runtimeAddress ? { runtimeAddress } : {}),
        ...(frontEndMetrics ? { registry: frontEndMetrics.registry } : {}),
        logger,
      });
      stops.unshift(() => metrics.close());
      logger.info({ url: metrics.url }, 'Prometheus metrics');
    }

    logger.info({ temporal: endpoint.address, mode: endpoint.mode, tls: Boolean(target.tls) }, 'Temporal connected');
    if (roles.server) {
      const apiUrl = config.http.publicUrl ?? `http://${config.http.host}:${config.http.port}`;
      logger.info(
        `Switchboard is up. API ${apiUrl}/api/v1, MCP ${apiUrl}/mcp (health: ${apiUrl}/healthz)` +
          (endpoint.uiUrl ? `, Temporal Web UI ${endpoint.uiUrl}` : ''),
      );
    } else {
      logger.info(
        { address: endpoint.address, taskQueue: config.temporal.taskQueue, hostTaskQueue: deps.sandbox.hostTaskQueue },
        'worker running',
      );
      // Tests and supervisors wait for this line before they start work.
      process.stdout.write('SWITCHBOARD_WORKER_READY\n');
    }
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
