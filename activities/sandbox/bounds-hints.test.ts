import { boundsHint, isFull } from './hints';
import { DEFAULT_LIMITS } from './limits';
import { requireBubblewrap, sandboxFixture } from './test-support';

/**
 * A bound is named after a command only when the kernel counted it (issue 31): the workspace's
 * cgroup counters, the signal that ended the call's own process, and how full its filesystems
 * are now. What a command printed and the exit status it chose never make a hint.
 */
describe('bound hints', () => {
  test('come from what the kernel counted, never from output or a chosen exit status', () => {
    expect(boundsHint({ forkRefused: false, oomKilled: false }, DEFAULT_LIMITS)).toBeUndefined();
    expect(boundsHint({ forkRefused: false, oomKilled: false, signal: 'SIGXCPU' }, DEFAULT_LIMITS)).toMatch(/3600 s of CPU time/);
    expect(boundsHint({ forkRefused: false, oomKilled: false, full: ['tmp'] }, DEFAULT_LIMITS)).toBe(
      '/tmp is full: it holds 1024 MiB; delete what is not needed.',
    );
    expect(isFull({ size: 300 * 1024 * 1024, free: 2 * 1024 * 1024 })).toBe(true);
    expect(isFull({ size: 300 * 1024 * 1024, free: 10 * 1024 * 1024 })).toBe(false);
  });

  describe('in a sandbox with small bounds (bwrap)', () => {
    let fixture: Awaited<ReturnType<typeof sandboxFixture>>;
    beforeAll(async () => {
      await requireBubblewrap();
      fixture = await sandboxFixture({ isolation: 'bwrap', limits: { tmpMiB: 8, shmMiB: 8, cpuSeconds: 1, fileMiB: 1 } });
    });
    afterAll(() => fixture?.cleanup());

    test('a command that only says "No space left on device", or exits 152 or 153, is told nothing of a bound', async () => {
      const workspace = fixture.workspace();
      for (const status of [152, 153, 1]) {
        const result = await fixture.activities.bash({
          workspace,
          command: `echo "dd: error writing 'x': No space left on device"; exit ${status}`,
        });
        expect(result.exitCode).toBe(status);
        expect(result.hint).toBeUndefined();
      }
    });

    test('a full /tmp and /dev/shm are said with their sizes while they are full, and not once freed', async () => {
      const workspace = fixture.workspace();
      const full = await fixture.activities.bash({
        workspace,
        command:
          // Files of 1 000 000 bytes each, under this sandbox's 1 MiB file-size bound.
          'for n in $(seq 12); do head -c 1000000 /dev/zero > /tmp/fill$n; head -c 1000000 /dev/zero > /dev/shm/fill$n; done 2>/dev/null; false',
      });
      expect(full.hint).toBe(
        ['/tmp is full: it holds 8 MiB; delete what is not needed.', '/dev/shm is full: it holds 8 MiB; delete what is not needed.'].join(
          '\n',
        ),
      );
      const freed = await fixture.activities.bash({
        workspace,
        command: 'rm /tmp/fill* /dev/shm/fill*; echo "No space left on device"; false',
      });
      expect(freed.hint).toBeUndefined();
    });

    test('the CPU-time and file-size bounds are said when their signal ended the command', async () => {
      const workspace = fixture.workspace();
      const cpu = await fixture.activities.bash({ workspace, command: "python3 -c 'while True: pass'", timeoutMs: 60_000 });
      expect(cpu).toMatchObject({ exitCode: 152, timedOut: false });
      expect(cpu.hint).toBe('The command used up its 1 s of CPU time and was stopped (SIGXCPU).');
      const file = await fixture.activities.bash({ workspace, command: 'dd if=/dev/zero of=big bs=1M count=4' });
      expect(file.exitCode).toBe(153);
      expect(file.hint).toBe('The command wrote a file past the 1 MiB a process may write (SIGXFSZ).');
    });
  });
});
