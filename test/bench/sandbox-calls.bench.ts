import { sandboxFixture, requireBubblewrap } from '../../activities/sandbox/test-support';
import { table, type Row } from './stats';

/**
 * `npm run bench`: what the wall costs a call. The same sandbox activities, once with the
 * workspace's wall (its own uid, user namespace, seccomp, cgroups, disk image; files and git
 * inside) and once `unisolated-unsafe` (the same code, commands and file I/O straight on the
 * host) as the floor, in the same process and machine. BENCH_SANDBOX_SAMPLES (default 40)
 * sizes it. docs/sandbox.md keeps the latest table.
 */
jest.setTimeout(10 * 60_000);

const SAMPLES = Number(process.env.BENCH_SANDBOX_SAMPLES ?? 40);

type Fixture = Awaited<ReturnType<typeof sandboxFixture>>;

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
      const rows: Row[] = [
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
