import { type Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { activityDepsFromConfig } from './activity-deps';
import { loadConfigForProcess } from './process-config';
import { createLogger, installTemporalRuntime, type Logger } from './logger';
import { reportStartupFailure } from './startup-errors';
import { openTemporalClient, temporalTarget } from './temporal-connection';
import { runtimeExporterAddress, startMetricsEndpoint } from './metrics';
import { ensureTemporal } from './temporal-endpoint';
import { connectWorker, createSwitchboardWorker } from './worker';
import { dataConverterFromConfig } from './payloads';
import { installMemoryReport } from './memory-report';
import { WorkspaceJanitor } from '../activities/sandbox/janitor';
import { workflowLiveness } from './workflow-liveness';

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
  const memoryReport = roles.worker && installMemoryReport();
  installTemporalRuntime(logger, {
    ...(runtimeAddress ? { prometheusBindAddress: runtimeAddress } : {}),
    ...(memoryReport ? { sigusr2: 'memory-report' } : {}),
  });

  const stops: Array<() => Promise<void>> = [];
  const shutdown = onceShutdown(logger, stops);
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    const endpoint = await ensureTemporal(loaded, logger, { start: roles.embedded, registerAttributes: roles.server });
    stops.unshift(() => endpoint.stop());
    const target = temporalTarget(loaded, endpoint.address);
    const frontEndMetrics = metricsOn && roles.server ? new (await import('../server/metrics.js')).FrontEndMetrics() : undefined;
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
        ...(memoryReport && memoryReport.inlineWorkflows ? { inlineWorkflows: true } : {}),
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
      // Sandboxes of workflows that were terminated (or otherwise ended without closing them) are ended here.
      const janitor = new WorkspaceJanitor({ host: deps.sandboxHost!, liveness: workflowLiveness(client), logger });
      janitor.start();
      stops.unshift(() => janitor.stop());
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

    if (roles.server) {
      // Loaded only here: a worker-only process never loads the front ends (Bolt, the MCP SDK, express).
      const { startServerRole } = await import('./server-role.js');
      await startServerRole({ loaded, client, connection, logger, deps, endpoint, stops, worker, frontEndMetrics });
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

if (require.main === module) void main();
