import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cpus, loadavg, totalmem } from 'node:os';
import type { RunRecord } from '../../workflows/contracts';
import { startRunKit, type RunKit } from '../helpers/run-kit';
import { againstOne, boundOf, callsOf, cpuTicks, MemorySampler, p50p99, type Call } from './density';
import { percentile } from './stats';

/**
 * `npm run bench` (alone: `npm run bench:density`): how many runs work at once on one worker
 * host before each call slows down. For each N in BENCH_DENSITY_N (default 1,8,32,64), N
 * threads each start a `coding` run at once on one worker (real sandbox, scripted model): a
 * first turn writes a file, then BENCH_DENSITY_ROUNDS (default 6) turns each run a `bash`
 * command, write a file and read the last one, then a last turn answers. Per call type, p50/p99
 * as the runs saw them (scheduled → closed, from their histories) against N = 1; the wait for a
 * worker slot; workspace preparation; the worker's CPU, its commands' CPU and the host's; memory;
 * and any call refused by a bound. BENCH_DENSITY_DISK_MIB sets `sandbox.limits.diskMiB` (default
 * the product's, an ext4 image on a loop device per workspace; 0 keeps folders). Prints the
 * table docs/performance.md keeps, and the knee: the first N where a bound refused or a `bash`
 * call's p99 passed 3× its single-run value.
 */
const LEVELS = (process.env.BENCH_DENSITY_N ?? '1,8,32,64').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_DENSITY_ROUNDS ?? 6);
const DISK_MIB = process.env.BENCH_DENSITY_DISK_MIB === undefined ? undefined : Number(process.env.BENCH_DENSITY_DISK_MIB);
const TICK = 100; // USER_HZ
const execFileAsync = promisify(execFile);

jest.setTimeout(60 * 60_000);

const TYPES: Array<[string, string]> = [
  ['bash', '`bash` (short command)'],
  ['writeFile', 'write_file (2 KB)'],
  ['readFile', 'read_file (2 KB)'],
  ['modelTurn', 'model turn (scripted)'],
  ['prepareWorkspace', 'workspace preparation'],
];

/** The calls that run a process in the sandbox (the entry chain and the helper): commands, file operations, preparation. */
const SANDBOXED = ['bash', 'readFile', 'writeFile', 'prepareWorkspace'];

interface Level {
  n: number;
  calls: Call[];
  runMs: number[];
  wallMs: number;
  cpu: { worker: number; commands: number; hostBusy: number };
  memory: { rssPeakMiB: number; hostGrowthMiB: number };
  refused: string[];
  loopsAtPeak: number;
}

describe('bench: runs at once on one worker host', () => {
  let kit: RunKit;
  const levels: Level[] = [];
  beforeAll(async () => {
    kit = await startRunKit('bench-density', {
      hostQueue: true,
      ...(DISK_MIB !== undefined ? { sandboxLimits: { diskMiB: DISK_MIB } } : {}),
    });
  });
  afterAll(async () => {
    await kit?.close();
    process.stdout.write(`\n${report(levels)}\n`);
  });

  const turns = () => [
    { text: 'Seeding.', toolCalls: [{ name: 'write_file', input: { path: 'notes/r0.txt', content: 'x'.repeat(2_000) } }] },
    ...Array.from({ length: ROUNDS }, (_, index) => ({
      text: `Round ${index + 1}.`,
      toolCalls: [
        { name: 'bash', input: { command: `printf 'round ${index + 1}\\n'; ls notes | wc -l` } },
        { name: 'write_file', input: { path: `notes/r${index + 1}.txt`, content: 'y'.repeat(2_000) } },
        { name: 'read_file', input: { path: `notes/r${index}.txt` } },
      ],
    })),
    { text: 'Done.' },
  ];

  for (const n of LEVELS) {
    it(`${n} run${n === 1 ? '' : 's'} at once`, async () => {
      const model = kit.script(`density-${n}`, turns());
      const memory = new MemorySampler().start();
      let loopsAtPeak = 0;
      const loops = setInterval(() => void loopsInUse().then((count) => (loopsAtPeak = Math.max(loopsAtPeak, count))), 2_000);
      const before = cpuTicks();
      const t0 = Date.now();
      const runs = await Promise.all(
        Array.from({ length: n }, async () => {
          const started = Date.now();
          const { threadId, runId } = await kit.start('work through the rounds', { agent: 'coding', model });
          // The result alone: following the run's status (the CLI's way) would query every run every 300 ms, on the worker measured.
          const record: RunRecord = await kit.client.workflow.getHandle(runId).result();
          return { threadId, runId, record, ms: Date.now() - started };
        }),
      );
      const wallMs = Date.now() - t0;
      const after = cpuTicks();
      clearInterval(loops);
      const level: Level = {
        n,
        calls: [],
        runMs: runs.map((run) => run.ms),
        wallMs,
        cpu: {
          worker: (after.self - before.self) / TICK,
          commands: (after.children - before.children) / TICK,
          hostBusy: (after.hostBusy - before.hostBusy) / Math.max(1, after.hostTotal - before.hostTotal),
        },
        memory: memory.stop(),
        refused: [],
        loopsAtPeak,
      };
      for (const run of runs) {
        level.calls.push(...(await callsOf(kit.client, run.runId)));
        for (const call of run.record.toolCalls.filter((entry) => !entry.ok)) {
          const bound = boundOf(call.error ?? '');
          if (bound) level.refused.push(`${bound}: ${call.name}: ${(call.error ?? '').slice(0, 160)}`);
        }
        if (run.record.outcome !== 'completed') level.refused.push(`${run.runId} ended ${run.record.outcome}: ${run.record.endedBy ?? ''}`);
      }
      for (const call of level.calls.filter((entry) => entry.failure)) {
        const bound = boundOf(call.failure!);
        if (bound) level.refused.push(`${bound}: ${call.type}: ${call.failure!.slice(0, 160)}`);
      }
      levels.push(level);
      // Each level starts from an empty host: the workspaces go, with their uids, cgroups and disks.
      for (const run of runs) await kit.sandboxHost.release({ key: run.threadId, network: true });
      process.stdout.write(`density: N=${n} done in ${(wallMs / 1000).toFixed(1)} s, load ${loadavg()[0].toFixed(1)}\n`);
    });
  }
});

/** Loop devices attached on the host (by anyone), read without blocking the worker's event loop. */
async function loopsInUse(): Promise<number> {
  try {
    const { stdout } = await execFileAsync('losetup', ['-a'], { encoding: 'utf8' });
    return stdout.split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

function report(levels: Level[]): string {
  const one = levels.find((level) => level.n === 1);
  const of = (level: Level | undefined, type: string, field: 'runMs' | 'waitMs' = 'runMs') =>
    (level?.calls ?? []).filter((call) => call.type === type).map((call) => (field === 'runMs' ? call.runMs + call.waitMs : call.waitMs));
  const header = ['what', ...levels.map((level) => `N = ${level.n}`)];
  const rows: string[][] = [];
  for (const [type, label] of TYPES)
    rows.push([
      `${label}: p50 / p99 ms (p99 vs N = 1)`,
      ...levels.map((level) => `${p50p99(of(level, type))} (${againstOne(of(level, type), of(one, type))})`),
    ]);
  rows.push(['wait for a worker slot, all calls: p50 / p99 ms', ...levels.map((level) => p50p99(level.calls.map((call) => call.waitMs)))]);
  rows.push(['one run, request → result: p50 / p99 ms', ...levels.map((level) => p50p99(level.runMs))]);
  rows.push(['calls done per second (all runs)', ...levels.map((level) => (level.calls.length / (level.wallMs / 1000)).toFixed(0))]);
  rows.push(['worker CPU (workflows, activities): s of CPU', ...levels.map((level) => level.cpu.worker.toFixed(1))]);
  rows.push(['sandboxed commands and helpers: s of CPU', ...levels.map((level) => level.cpu.commands.toFixed(1))]);
  // CPU per sandboxed call holds still on a shared machine where latencies do not: the cost each call adds to the host.
  const sandboxed = (level: Level) => level.calls.filter((call) => SANDBOXED.includes(call.type)).length;
  rows.push(['worker CPU per sandboxed call, ms', ...levels.map((level) => ((level.cpu.worker * 1000) / sandboxed(level)).toFixed(1))]);
  rows.push(['commands CPU per sandboxed call, ms', ...levels.map((level) => ((level.cpu.commands * 1000) / sandboxed(level)).toFixed(1))]);
  rows.push(['host CPU busy (all processes, both cores)', ...levels.map((level) => `${Math.round(level.cpu.hostBusy * 100)} %`)]);
  rows.push(['worker RSS, peak MiB', ...levels.map((level) => String(level.memory.rssPeakMiB))]);
  rows.push(['host memory used, growth MiB', ...levels.map((level) => String(level.memory.hostGrowthMiB))]);
  rows.push(['loop devices attached, peak (host-wide)', ...levels.map((level) => String(level.loopsAtPeak))]);
  rows.push(['calls refused by a bound', ...levels.map((level) => String(level.refused.length))]);
  const lines = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)];
  const bashOne = percentile(of(one, 'bash'), 99);
  const slow = levels.find((level) => percentile(of(level, 'bash'), 99) > 3 * bashOne);
  const refused = levels.find((level) => level.refused.length > 0);
  const knee = [
    refused ? `first refusal at N = ${refused.n}: ${refused.refused[0]}` : 'no call refused by a bound',
    slow ? `bash p99 past 3× its single-run value at N = ${slow.n}` : 'bash p99 stayed under 3× its single-run value',
  ];
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, load ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ')}`;
  return `Runs at once on one worker (${ROUNDS} rounds of bash + write + read per run, disk ${DISK_MIB === 0 ? 'folders' : 'images'})\n\n${lines.join('\n')}\n\n${knee.map((line) => `- ${line}`).join('\n')}\n${levels
    .flatMap((level) => level.refused.slice(0, 3).map((line) => `  - N = ${level.n}: ${line}`))
    .join('\n')}\nmachine: ${machine}\n`;
}
