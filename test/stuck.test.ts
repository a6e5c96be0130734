import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { checkHealth } from '../server/health';
import { findStuck } from '../infra/stuck';
import { FrontEndMetrics } from '../server/metrics';
import { sharedEnvironment, uniqueTaskQueue } from './helpers/temporal';
import { waitUntil } from './helpers/wait';
import { runCli } from './helpers/cli';
import { tmpdir } from 'node:os';
import { brokenRunWorkflow } from './fixtures/stuck/workflows';
import { SwitchboardKind } from '../workflows/search-attributes';
import { threadWorkflowType } from '../workflows/contracts';

jest.setTimeout(90_000);

describe('a workflow that cannot complete its workflow task is visible', () => {
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = uniqueTaskQueue('stuck');
  beforeAll(async () => {
    env = await sharedEnvironment();
    const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('./fixtures/stuck/workflows') });
    worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: { code } });
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  it('in findStuck (runs list --stuck), as a degraded /healthz and as a metric', async () => {
    const workflowId = `run:stuck-test:${taskQueue}`;
    // Set at start: a failed workflow task's own upserts are never recorded.
    const handle = await env.client.workflow.start(brokenRunWorkflow, {
      taskQueue,
      workflowId,
      typedSearchAttributes: [{ key: SwitchboardKind, value: 'run' }],
    });
    const stuck = await waitUntil(
      () => findStuck(env.client, { kinds: ['run'] }),
      (found) => found.some((entry) => entry.workflowId === workflowId),
    );
    expect(stuck.find((entry) => entry.workflowId === workflowId)?.attempts).toBeGreaterThanOrEqual(3);
    const health = await checkHealth({
      namespace: 'default',
      taskQueue,
      pingTemporal: async () => undefined,
      workerState: () => 'RUNNING',
      stuck: () => findStuck(env.client, { kinds: ['run'] }),
    });
    expect(health).toMatchObject({ ok: true, status: 'degraded' });
    expect(health.reason).toContain(workflowId);
    const metrics = new FrontEndMetrics();
    metrics.countStuck(() => findStuck(env.client, { kinds: ['run'] }));
    const scraped = await metrics.registry.metrics();
    const runs = Number(/^switchboard_stuck_workflows\{kind="run"\} (\d+)$/m.exec(scraped)?.[1]);
    expect(runs).toBeGreaterThanOrEqual(1);
    expect(scraped).toMatch(/^switchboard_stuck_workflows\{kind="unit"\} 0$/m);
    // The operator's command lists it and says so in its exit code, for scripts and cron checks.
    for (const args of [['stuck'], ['stuck', '--json'], ['runs', 'list', '--stuck']]) {
      const listed = await runCli({ dir: tmpdir(), taskQueue }, args);
      expect({ args, code: listed.code, listed: listed.stdout.includes(workflowId) }).toEqual({ args, code: 1, listed: true });
    }
    await handle.terminate('test over');
    expect(await findStuck(env.client, { kinds: ['run'] })).not.toContainEqual(expect.objectContaining({ workflowId }));
  });

  it('a thread stuck in its first task (no SwitchboardKind yet) is found by its type, with the reason, by every look alike', async () => {
    const workflowId = `thread:stuck-test:${taskQueue}`;
    const handle = await env.client.workflow.start(threadWorkflowType, {
      taskQueue,
      workflowId,
      args: [{ threadId: workflowId, replyTarget: { kind: 'cli' } }],
    });
    const stuck = await waitUntil(
      () => findStuck(env.client),
      (found) => found.some((entry) => entry.workflowId === workflowId),
    );
    expect(stuck.find((entry) => entry.workflowId === workflowId)).toMatchObject({
      kind: 'thread',
      reason: "Cannot read properties of undefined (reading 'surface')",
    });
    const health = await checkHealth({
      namespace: 'default',
      taskQueue,
      pingTemporal: async () => undefined,
      workerState: () => 'RUNNING',
      stuck: () => findStuck(env.client),
    });
    expect(health.stuck).toContainEqual(expect.objectContaining({ workflowId, kind: 'thread' }));
    expect(health.reason).toContain('see `switchboard stuck`');
    const metrics = new FrontEndMetrics();
    metrics.countStuck(() => findStuck(env.client));
    expect(
      Number(/^switchboard_stuck_workflows\{kind="thread"\} (\d+)$/m.exec(await metrics.registry.metrics())?.[1]),
    ).toBeGreaterThanOrEqual(1);
    await handle.terminate('test over');
  });
});
