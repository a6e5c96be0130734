import { setTimeout as delay } from 'node:timers/promises';
import { type Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { activityDepsFromConfig } from './activity-deps';
import { loadConfigForProcess } from './process-config';
import { createLogger, installTemporalRuntime, type Logger } from './logger';
import { reportStartupFailure } from './startup-errors';
import { openTemporalClient, temporalTarget } from './temporal-connection';
import { runtimeExporterAddress, startMetricsEndpoint } from './metrics';
import { ensureTemporal } from './temporal-endpoint';
import { connectWorker, createSwitchboardWorker, workerRunStarts } from './worker';
import { dataConverterFromConfig } from './payloads';
import { installMemoryReport } from './memory-report';
import { WorkspaceJanitor } from '../activities/sandbox/janitor';
import { workflowLiveness } from './workflow-liveness';
import { ResidentQueues } from './resident-queues';
import { registeredRepoCache } from '../activities/sandbox/repo-cache/repo-cache';
import { installTracing, type Tracing } from './tracing';
import { endedOwners, tellEndedUnit } from './ended-owners';

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

  let tracing: Tracing;
  try {
    tracing = installTracing(process.env, roles.worker && roles.server ? 'all' : roles.worker ? 'worker' : 'server');
  } catch (error) {
    reportStartupFailure(logger, error);
    process.exitCode = 1;
    // The Temporal runtime installed above would hold the process open.
    return exitWhenDone(logger);
  }
  if (tracing.enabled) logger.info(`Traces ${tracing.description}`);
  // Last of all at a stop: what the other stops did is traced too.
  const stops: Array<() => Promise<void>> = [() => tracing.shutdown()];
  const shutdown = onceShutdown(logger, stops);
  let firstSignalAt = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    // A second Ctrl-C (or SIGTERM) does not wait for the first one's graceful stop. Under `npm
    // start` one Ctrl-C arrives twice within milliseconds (from the terminal, and forwarded by
    // npm): a signal that close to the first is the same one.
    if (shutdown.started) {
      if (Date.now() - firstSignalAt < SAME_SIGNAL_MS) return;
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    firstSignalAt = Date.now();
    void shutdown(signal).then(() => exitWhenDone(logger));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

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
      // One more queue per repository this host holds a cache of: resident work there prefers this host.
      const resident: { queues?: ResidentQueues } = {};
      deps.sandbox.onRepoCacheChange = () => void resident.queues?.sync();
      const running = await createSwitchboardWorker({
        connection: nativeConnection,
        namespace: config.temporal.namespace,
        taskQueue: config.temporal.taskQueue,
        // Threads start their runs through this worker's own connection: the run's first task comes back here eagerly.
        activities: createActivities({ ...deps, runStarts: workerRunStarts(nativeConnection, config.temporal.namespace, dataConverter) }),
        bundlePath: process.env.SWITCHBOARD_WORKFLOW_BUNDLE || undefined,
        // A reference sent by hand that the store cannot resolve is refused input, not a failed task.
        dataConverter: dataConverterFromConfig(config, { worker: true }),
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
      const residents = new ResidentQueues({
        connection: nativeConnection,
        namespace: config.temporal.namespace,
        taskQueue: config.temporal.taskQueue,
        activities: createActivities(deps),
        repos: () => registeredRepoCache(deps.sandboxHost!)?.repos() ?? Promise.resolve([]),
        dataConverter,
        logger,
      });
      resident.queues = residents;
      void residents.sync();
      stops.unshift(() => residents.stop());
      worker = running;
      // Sandboxes of workflows that were terminated (or otherwise ended without closing them) are ended here.
      const janitor = new WorkspaceJanitor({
        host: deps.sandboxHost!,
        liveness: workflowLiveness(client),
        logger,
        // Terminated threads and units: their files go, and a unit's pull request hears it.
        endedOwners: endedOwners(client),
        released: tellEndedUnit({ client, identities: deps.github.identities }),
      });
      janitor.start();
      stops.unshift(() => janitor.stop());
      const workerDone = Promise.all([running.run(), hostWorker.run()]);
      stops.unshift(async () => {
        for (const each of [running, hostWorker]) if (each.getState() === 'RUNNING') each.shutdown();
        await workerDone.catch(() => undefined);
        // The workspaces' network doors listen in this process: shut them, or their sockets keep it alive.
        // (Holders and detached jobs stay for the next worker on this host; the doors are opened again then.)
        deps.sandboxHost?.shutDoors();
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
    // The Temporal runtime (its log forwarding) would hold the process open: exit as after a signal.
    exitWhenDone(logger);
  }
}

/**
 * How long a graceful stop may take in all: the worker's grace for running activities (10 s,
 * infra/worker.ts) and their cancellation, the HTTP server, the embedded Temporal. Past it the
 * process exits anyway.
 */
export const SHUTDOWN_BOUND_MS = 30_000;

/** A signal this soon after the first is the same Ctrl-C delivered twice (npm forwards what the terminal sent). */
const SAME_SIGNAL_MS = 1_000;

function onceShutdown(logger: Logger, stops: Array<() => Promise<void>>) {
  const shutdown = async (why: string) => {
    if (shutdown.started) return;
    shutdown.started = true;
    logger.info({ why }, 'shutting down');
    const deadline = Date.now() + SHUTDOWN_BOUND_MS;
    for (const stop of stops) {
      const left = deadline - Date.now();
      try {
        const outcome = await Promise.race([stop().then(() => 'done' as const), delay(Math.max(0, left), 'late' as const, { ref: false })]);
        if (outcome === 'late') {
          logger.warn({ boundMs: SHUTDOWN_BOUND_MS }, 'shutdown took too long: skipping what is left');
          break;
        }
      } catch (error) {
        logger.warn({ err: error }, 'error during shutdown');
      }
    }
  };
  shutdown.started = false;
  return shutdown;
}

/**
 * After a signal's graceful stop: exit with the code so far (0 unless the worker failed). What
 * is still open is named first, so a handle that would have kept the process alive is seen.
 */
function exitWhenDone(logger: Logger): void {
  const open = process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap' && kind !== 'Timeout' && kind !== 'Immediate');
  if (open.length > 0) logger.info({ open }, 'stopped; exiting with these still open');
  else logger.info('stopped');
  process.exit(process.exitCode ?? 0);
}

if (require.main === module) void main();
