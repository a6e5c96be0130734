import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { writeBareBundle } from './bare-bundle';
import { sharedEnvironment, uniqueTaskQueue } from '../helpers/temporal';
import { bareWorkflow } from './bare-workflow';
import { closedAt } from './closed-at';
import { measureIdleThreads, type IdleThreads } from './idle-threads';
import { table, type Row } from './stats';

/**
 * The idle-threads row of `npm run bench`, runnable alone: `npm run bench:idle`. Sized by
 * BENCH_IDLE_THREADS (default 1,000), BENCH_IDLE_MEMORY_MB (the worker's
 * SWITCHBOARD_WORKER_MEMORY_MB, default 500), BENCH_IDLE_MINUTES (the fill's deadline, default
 * 20; a cut fill still prints what it reached), BENCH_IDLE_CONCURRENCY (default 20),
 * BENCH_IDLE_FOLLOW_UPS (default 30) and BENCH_IDLE_NODE_OPTIONS (the worker's; default
 * `--max-old-space-size=` half the memory).
 */
const THREADS = Number(process.env.BENCH_IDLE_THREADS ?? 1_000);
const MEMORY_MB = Number(process.env.BENCH_IDLE_MEMORY_MB ?? 500);
const MINUTES = Number(process.env.BENCH_IDLE_MINUTES ?? 20);
const CONCURRENCY = Number(process.env.BENCH_IDLE_CONCURRENCY ?? 20);
const FOLLOW_UPS = Number(process.env.BENCH_IDLE_FOLLOW_UPS ?? 30);
/** The heap limit docs/operations.md asks for (about half the memory given): without it V8 keeps garbage. */
const NODE_OPTIONS = process.env.BENCH_IDLE_NODE_OPTIONS ?? `--max-old-space-size=${Math.floor(MEMORY_MB / 2)}`;

// The fill's deadline plus the follow-ups, the floor and the worker's start and stop.
jest.setTimeout((MINUTES + 8) * 60_000);

it(`${THREADS} idle threads on one worker`, async () => {
  const env = await sharedEnvironment();
  const dir = mkdtempSync(join(tmpdir(), 'bench-idle-'));
  const bareQueue = uniqueTaskQueue('bench-idle-bare');
  const bareBundle = await writeBareBundle(dir);
  const bareWorker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: bareQueue,
    workflowBundle: { codePath: bareBundle },
    activities: { noop: async () => undefined },
  });
  const bareRunning = bareWorker.run();
  const client = new Client({ connection: env.connection });
  let idle: IdleThreads | undefined;
  const bare: number[] = [];
  try {
    idle = await measureIdleThreads(client, dir, {
      threads: THREADS,
      followUps: FOLLOW_UPS,
      memoryMb: MEMORY_MB,
      concurrency: CONCURRENCY,
      deadline: Date.now() + MINUTES * 60_000,
      nodeOptions: NODE_OPTIONS,
      progress: (line) => process.stdout.write(`idle threads: ${line}\n`),
    });
    for (let k = 0; k < FOLLOW_UPS; k += 1) {
      const id = `bare-${Math.random().toString(36).slice(2)}`;
      const t0 = Date.now();
      await client.workflow.execute(bareWorkflow, { taskQueue: bareQueue, workflowId: id, args: [id] });
      bare.push((await closedAt(client, id)) - t0);
    }
  } finally {
    bareWorker.shutdown();
    await bareRunning;
    await env.teardown();
    rmSync(dir, { recursive: true, force: true });
    if (idle) process.stdout.write(report(idle, bare));
  }
  expect(idle.threads).toBeGreaterThan(0);
});

function report(idle: IdleThreads, bare: number[]): string {
  const empty = idle.points[0];
  const last = idle.points[idle.points.length - 1];
  const rows: Row[] = [
    {
      what: `${idle.threads} idle threads: worker RSS (empty → idle)`,
      floor: [empty.rss],
      ours: [last.rss],
      unit: 'MB',
      target: { p99Ms: 500 },
    },
    {
      what: `follow-up to a random one of ${idle.threads} idle threads: request → result`,
      floor: bare,
      ours: idle.followUps,
      target: { p99Ms: 1_000 },
    },
  ];
  const held = Math.min(idle.threads, idle.cachedWorkflows);
  const perThread = (key: 'rss' | 'heapUsed') => (held ? ((last[key] - empty[key]) / held).toFixed(2) : '—');
  const points = idle.points.map(
    (p) =>
      `| ${p.threads} | ${p.rss} | ${p.heapUsed} | ${p.heapTotal} | ${p.external} | ${p.oldSpaceUsed} / ${p.oldSpaceCommitted} | ${p.heapLimit} |`,
  );
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')}`;
  return [
    '',
    table(rows),
    '',
    `- ${idle.complete ? 'complete' : `CUT by the deadline (BENCH_IDLE_MINUTES=${MINUTES}): ${idle.threads} of ${THREADS} threads, ${idle.followUps.length} of ${FOLLOW_UPS} follow-ups`}`,
    `- worker given ${MEMORY_MB} MB (cache ${idle.cachedWorkflows} workflows)${NODE_OPTIONS ? `, NODE_OPTIONS ${NODE_OPTIONS}` : ''}; filled in ${Math.round(idle.fillSeconds)} s (${(idle.threads / Math.max(1, idle.fillSeconds)).toFixed(1)} threads/s, ${CONCURRENCY} at once)`,
    `- per cached thread (${held}): ${perThread('rss')} MiB RSS, ${perThread('heapUsed')} MiB V8 heap (after a full GC)`,
    '',
    '| threads | RSS MiB | heap used | heap total | external | old space used / committed | heap limit |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...points,
    '',
    `machine: ${machine}`,
    '',
  ].join('\n');
}
