import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { startDevServer, type DevServer } from '../infra/dev-server';
import { missingSearchAttributes } from '../infra/temporal';
import { resolveTemporalBinary } from '../infra/temporal-binaries';
import { proceedSignal, waitForSignalWorkflow } from './fixtures/workflows';
import { freePort } from './helpers/ports';
import { quietRuntime, uniqueTaskQueue } from './helpers/temporal';

jest.setTimeout(180_000);

describe('the embedded Temporal server keeps its state in SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-restart-'));
  const dbFile = join(dir, 'temporal.sqlite');
  let server: DevServer | undefined;

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('completes a workflow started before the server restarted', async () => {
    quietRuntime();
    const binary = resolveTemporalBinary('cli').path;
    const port = await freePort();
    const taskQueue = uniqueTaskQueue('restart');
    const { code } = await bundleWorkflowCode({
      workflowsPath: require.resolve('./fixtures/workflows'),
      logger: new DefaultLogger('WARN'),
    });

    const runWorkerUntil = async <T>(until: () => Promise<T>): Promise<T> => {
      const connection = await NativeConnection.connect({ address: `127.0.0.1:${port}` });
      try {
        const worker = await Worker.create({ connection, taskQueue, workflowBundle: { code } });
        return await worker.runUntil(until);
      } finally {
        await connection.close();
      }
    };

    server = await startDevServer({ binary, port, dbFile, ui: false });
    let connection = await Connection.connect({ address: server.address });
    let client = new Client({ connection });
    const workflowId = `restart-${taskQueue}`;
    const handle = await client.workflow.start(waitForSignalWorkflow, { taskQueue, workflowId });
    // Let a worker take the first task, so the workflow is mid-flight, not merely queued.
    await runWorkerUntil(async () => {
      for (let i = 0; i < 100 && (await handle.describe()).raw.pendingWorkflowTask; i++) await sleep(100);
    });
    await connection.close();
    await server.stop();

    server = await startDevServer({ binary, port, dbFile, ui: false });
    connection = await Connection.connect({ address: server.address });
    client = new Client({ connection });
    expect(await missingSearchAttributes(connection, 'default')).toEqual([]);
    const resumed = client.workflow.getHandle(workflowId);
    expect((await resumed.describe()).status.name).toBe('RUNNING');
    await resumed.signal(proceedSignal, 'after restart');
    const result = await runWorkerUntil(() => resumed.result());
    expect(result).toBe('received: after restart');
    await connection.close();
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
