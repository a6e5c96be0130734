import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxFixture, requireBubblewrap } from '../../activities/sandbox/test-support';
import { table, type Row } from './stats';

/**
 * `npm run bench`: what the wall costs a call. The same sandbox activities, once with the
 * workspace's wall (its own uid, user namespace, seccomp, cgroups, disk image; files and git
 * inside) and once `unisolated-unsafe` (the same code, commands and file I/O straight on the
 * host) as the floor, in the same process and machine; and, for scale, the bare operation a
 * worker without any sandbox would do (a `sh -c` child, a host `readFileSync`). BENCH_SANDBOX_SAMPLES (default 40)
 * sizes it. docs/sandbox.md keeps the latest table.
 */
jest.setTimeout(10 * 60_000);

const SAMPLES = Number(process.env.BENCH_SANDBOX_SAMPLES ?? 40);

type Fixture = Awaited<ReturnType<typeof sandboxFixture>>;

/** `sh -c <command>` as a plain child of the process, to its exit. */
function spawnShell(command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

async function timed(samples: number, call: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < samples; index += 1) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  return times;
}

/** Each kind of call on one fixture: a short command, a 10 KB read and write, a workspace's first prepare. */
async function measure(fixture: Fixture) {
  const workspace = fixture.workspace();
  await fixture.activities.bash({ workspace, command: 'true' });
  await fixture.activities.writeFile({ workspace, path: 'a.txt', content: 'x'.repeat(10_000) });
  const bash = await timed(SAMPLES, () => fixture.activities.bash({ workspace, command: 'echo hi' }));
  const read = await timed(SAMPLES, () => fixture.activities.readFile({ workspace, path: 'a.txt' }));
  const write = await timed(SAMPLES, () => fixture.activities.writeFile({ workspace, path: 'b.txt', content: 'y'.repeat(10_000) }));
  // Fewer samples: each is a new workspace (a uid, cgroups, a disk image and a holder when walled).
  const prepare = await timed(Math.max(3, Math.round(SAMPLES / 8)), () =>
    fixture.activities.prepareWorkspace({ workspace: fixture.workspace() }),
  );
  return { bash, read, write, prepare };
}

describe('bench: sandbox calls', () => {
  it('measures each call with the wall against the same call without it', async () => {
    await requireBubblewrap();
    const bare = await sandboxFixture({ isolation: 'unisolated-unsafe' });
    const walled = await sandboxFixture({ isolation: 'bwrap' });
    try {
      const floor = await measure(bare);
      const ours = await measure(walled);
      const hostDir = mkdtempSync(join(tmpdir(), 'bench-sandbox-host-'));
      writeFileSync(join(hostDir, 'a.txt'), 'x'.repeat(10_000));
      const bareShell = await timed(SAMPLES, () => spawnShell('echo hi'));
      const bareRead = await timed(SAMPLES, async () => readFileSync(join(hostDir, 'a.txt'), 'utf8'));
      rmSync(hostDir, { recursive: true, force: true });
      const rows: Row[] = [
        { what: 'for scale: bash `echo hi` against a bare `sh -c` child', floor: bareShell, ours: ours.bash },
        { what: 'for scale: read_file, 10 KB, against a host readFileSync', floor: bareRead, ours: ours.read },
        { what: 'bash `echo hi` (in a prepared workspace)', floor: floor.bash, ours: ours.bash },
        { what: 'read_file, 10 KB', floor: floor.read, ours: ours.read },
        { what: 'write_file, 10 KB', floor: floor.write, ours: ours.write },
        { what: "a workspace's first prepare", floor: floor.prepare, ours: ours.prepare },
      ];
      process.stdout.write(`\nSandbox calls (floor: the same activities unisolated-unsafe)\n\n${table(rows)}\n`);
    } finally {
      await walled.cleanup();
      await bare.cleanup();
    }
  });
});
