import { Client } from '@temporalio/client';
import { loadConfigForProcess } from './process-config';
import { createActivities } from '../activities';
import { activityDepsFromConfig } from './activity-deps';
import { describeError } from './errors';
import { createLogger, installTemporalRuntime } from './logger';
import { connectTemporal } from './temporal';
import { connectWorker, createSwitchboardWorker } from './worker';

/**
 * A worker-only process (`node dist/infra/worker-main.js`): for scaling out, and for the
 * fault tests that SIGKILL a worker mid-run. It needs a reachable Temporal
 * (`TEMPORAL_ADDRESS`). `SWITCHBOARD_WORKFLOW_BUNDLE` overrides the bundle path (tests).
 */
export async function workerMain(): Promise<void> {
  const loaded = loadConfigForProcess();
  if (!loaded) return;
  const { config } = loaded;
  const logger = createLogger({ level: config.log.level, format: config.log.format });
  installTemporalRuntime(logger);
  const address = config.temporal.address ?? `${config.temporal.embedded.ip}:${config.temporal.embedded.port}`;
  const connection = await connectWorker(address);
  const clientConnection = await connectTemporal({ address, timeoutMs: 10_000 });
  const client = new Client({ connection: clientConnection, namespace: config.temporal.namespace });
  const worker = await createSwitchboardWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    activities: createActivities(activityDepsFromConfig(loaded, logger, client)),
    bundlePath: process.env.SWITCHBOARD_WORKFLOW_BUNDLE || undefined,
    logger,
  });
  const stop = () => worker.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  logger.info({ address, taskQueue: config.temporal.taskQueue }, 'worker running');
  // Tests wait for this line before they start work.
  process.stdout.write('SWITCHBOARD_WORKER_READY\n');
  await worker.run();
  await connection.close();
  await clientConnection.close();
}

if (require.main === module) {
  workerMain().catch((error: unknown) => {
    console.error(describeError(error));
    process.exitCode = 1;
  });
}
