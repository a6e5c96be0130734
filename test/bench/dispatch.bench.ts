import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus, totalmem, loadavg } from 'node:os';
import { join } from 'node:path';
import { Client, type ConnectionLike } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { writeBareBundle } from './bare-bundle';
import { sendMessage } from '../../cli/commands/ask';
import { projectRoot } from '../../infra/paths';
import { startRunKit, type RunKit } from '../helpers/run-kit';
import { sharedEnvironment, testTemporalAddress, uniqueTaskQueue } from '../helpers/temporal';
import { table, type Row } from './stats';
import { bareEagerParentWorkflow, bareParentWorkflow, bareWorkflow } from './bare-workflow';
import { closedAt } from './closed-at';

/**
 * `npm run bench`: each measurement of issue 15 against a bare-Temporal floor started in the
 * same run, on the same dev server. Prints a markdown table (docs/performance.md keeps the
 * latest). BENCH_SAMPLES (default 15) and BENCH_BURST (default 50) size it. The idle-threads
 * rows are in idle-threads.bench.ts (`npm run bench:idle` runs them alone).
 */
jest.setTimeout(30 * 60_000);

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 15);
const BURST = Number(process.env.BENCH_BURST ?? 50);

describe('bench', () => {
  const rows: Row[] = [];
  const notes: string[] = [];
  let kit: RunKit;
  let bareWorker: Worker;
  let bareRunning: Promise<void>;
  let bareQueue: string;
  let bareBundle: string;
  let eagerClient: Client;
  const firstActivity = new Map<string, number>();
  const bareDir = mkdtempSync(join(tmpdir(), 'bench-bare-'));

  beforeAll(async () => {
    const env = await sharedEnvironment();
    bareQueue = uniqueTaskQueue('bench-bare');
    bareBundle = await writeBareBundle(bareDir);
    eagerClient = new Client({ connection: env.nativeConnection as unknown as ConnectionLike });
    bareWorker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: bareQueue,
      workflowBundle: { codePath: bareBundle },
      activities: {
        noop: async (id: string) => void firstActivity.set(id, Date.now()),
        startEagerly: async (id: string) => {
          await eagerClient.workflow.start(bareWorkflow, { taskQueue: bareQueue, workflowId: id, args: [id], requestEagerStart: true });
        },
      },
    });
    bareRunning = bareWorker.run();
    kit = await startRunKit('bench', {
      env,
      wrapActivities: (activities) => ({
        ...activities,
        modelTurn: async (input: Parameters<typeof activities.modelTurn>[0]) => {
          if (!firstActivity.has(input.runId)) firstActivity.set(input.runId, Date.now());
          return activities.modelTurn(input);
        },
      }),
    });
  });

  afterAll(async () => {
    bareWorker?.shutdown();
    await bareRunning;
    await kit?.close();
    rmSync(bareDir, { recursive: true, force: true });
    const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')}`;
    process.stdout.write(
      `\n${table(rows)}\n\n${notes.map((note) => `- ${note}\n`).join('')}\nmachine: ${machine}; ${SAMPLES} samples, burst ${BURST}\n`,
    );
  });

  async function bareSample(): Promise<{ first: number; result: number }> {
    const id = `bare-${Math.random().toString(36).slice(2)}`;
    const t0 = Date.now();
    const handle = await kit.client.workflow.start(bareWorkflow, { taskQueue: bareQueue, workflowId: id, args: [id] });
    await handle.result();
    return { first: firstActivity.get(id)! - t0, result: (await closedAt(kit.client, id)) - t0 };
  }

  async function bareChildSample(): Promise<{ first: number; result: number }> {
    const id = `bare-parent-${Math.random().toString(36).slice(2)}`;
    const t0 = Date.now();
    const handle = await kit.client.workflow.start(bareParentWorkflow, { taskQueue: bareQueue, workflowId: id, args: [id] });
    await handle.result();
    return { first: firstActivity.get(`${id}-child`)! - t0, result: (await closedAt(kit.client, id)) - t0 };
  }

  async function bareEagerSample(): Promise<{ first: number; result: number }> {
    const id = `bare-eager-${Math.random().toString(36).slice(2)}`;
    const t0 = Date.now();
    const handle = await kit.client.workflow.start(bareEagerParentWorkflow, { taskQueue: bareQueue, workflowId: id, args: [id] });
    await handle.result();
    return { first: (await waitForActivity(`${id}-child`)) - t0, result: (await closedAt(kit.client, `${id}-child`)) - t0 };
  }

  async function waitForActivity(id: string): Promise<number> {
    while (!firstActivity.has(id)) await new Promise((resolve) => setTimeout(resolve, 5));
    return firstActivity.get(id)!;
  }

  async function oursSample(model: string, thread?: string): Promise<{ first: number; result: number }> {
    const t0 = Date.now();
    const sent = await sendMessage(kit.client, kit.taskQueue, 'hello', {
      requester: 'bench',
      agent: 'general',
      model,
      ...(thread ? { thread } : {}),
    });
    const runId = sent.outcome.runId!;
    const closed = await closedAt(kit.client, runId);
    return { first: firstActivity.get(runId)! - t0, result: closed - t0 };
  }

  it('dispatch: request → first activity and → result', async () => {
    const model = kit.script('hello', [{ text: 'Hello.' }]);
    await bareSample();
    await bareChildSample();
    await bareEagerSample();
    await oursSample(model);
    const bare = [];
    const bareChild = [];
    const bareEager = [];
    const ours = [];
    for (let k = 0; k < SAMPLES; k += 1) {
      bare.push(await bareSample());
      bareChild.push(await bareChildSample());
      bareEager.push(await bareEagerSample());
      ours.push(await oursSample(model));
    }
    rows.push({
      what: 'request → first activity (`modelTurn` for us)',
      floor: bare.map((s) => s.first),
      ours: ours.map((s) => s.first),
      target: { ratio: 1.5 },
    });
    rows.push({
      what: 'request → result (run completed)',
      floor: bare.map((s) => s.result),
      ours: ours.map((s) => s.result),
      target: { ratio: 2 },
    });
    rows.push({
      what: 'diagnostic, no Switchboard code: the floor with one child-workflow hop (its request → first activity in the Switchboard columns)',
      floor: bare.map((s) => s.first),
      ours: bareChild.map((s) => s.first),
    });
    rows.push({
      what: 'diagnostic, no Switchboard code: the same hop as a local activity starting the child with eager workflow start',
      floor: bare.map((s) => s.first),
      ours: bareEager.map((s) => s.first),
    });
  });

  it(`${BURST} concurrent follow-ups to idle threads`, async () => {
    const model = kit.script('hello-again', [{ text: 'Hello again.' }]);
    const threads: string[] = [];
    for (let k = 0; k < BURST; k += 1) {
      const sent = await sendMessage(kit.client, kit.taskQueue, 'hello', { requester: 'bench', agent: 'general', model });
      await closedAt(kit.client, sent.outcome.runId!);
      threads.push(sent.threadId);
    }
    const bare = await Promise.all(Array.from({ length: BURST }, () => bareSample()));
    const ours = await Promise.all(threads.map((thread) => oursSample(model, thread)));
    rows.push({
      what: `${BURST} concurrent: request → result`,
      floor: bare.map((s) => s.result),
      ours: ours.map((s) => s.result),
      target: { p99Ms: 3_000 },
    });
  });

  it('worker spawn → running', async () => {
    const bare: number[] = [];
    const ours: number[] = [];
    const script = `const { NativeConnection, Worker } = require('@temporalio/worker');
      (async () => {
        const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
        const worker = await Worker.create({ connection, taskQueue: process.env.Q, workflowBundle: { codePath: process.env.BUNDLE }, activities: { noop: async () => undefined } });
        process.stdout.write('SWITCHBOARD_WORKER_READY\\n');
        await worker.run();
      })();`;
    for (let k = 0; k < Math.min(SAMPLES, 5); k += 1) {
      bare.push(await spawnUntilReady(['-e', script], { Q: uniqueTaskQueue('spawn-bare'), BUNDLE: bareBundle }));
      ours.push(
        await spawnUntilReady([join(projectRoot(), 'dist', 'infra', 'worker-main.js')], {
          SWITCHBOARD_TASK_QUEUE: uniqueTaskQueue('spawn'),
          SWITCHBOARD_DATA_DIR: join(bareDir, `data-${k}`),
          LOG_LEVEL: 'warn',
        }),
      );
    }
    rows.push({ what: 'worker spawn → running', floor: bare, ours, target: { ratio: 1.5 } });
  });
});

/** Spawns a process and returns the ms until it prints the ready line; then stops it. */
async function spawnUntilReady(args: string[], env: Record<string, string>): Promise<number> {
  const t0 = Date.now();
  const child = spawn(process.execPath, args, {
    cwd: projectRoot(),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', TEMPORAL_ADDRESS: testTemporalAddress(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const elapsed = await new Promise<number>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('SWITCHBOARD_WORKER_READY')) resolve(Date.now() - t0);
    });
    child.once('exit', () => reject(new Error(`exited before ready:\n${text}`)));
  });
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return elapsed;
}
