import { setTimeout as delay } from 'node:timers/promises';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DETACH_RECIPE } from './hints';
import { markedPids, requireBubblewrap, sandboxFixture, waitUntil } from './test-support';

// `bwrap` is the default (the README's quick start and CI install it); `unisolated-unsafe` is the
// explicit local-development mode, run here too so both paths are proven on every machine.
describe.each(['bwrap', 'unisolated-unsafe'] as const)('sandbox bash (isolation: %s)', (isolation) => {
  let fixture: Awaited<ReturnType<typeof sandboxFixture>>;
  const isolated = isolation === 'bwrap';
  beforeAll(async () => {
    if (isolated) await requireBubblewrap();
    fixture = await sandboxFixture({ heartbeatMs: 100, isolation });
  });
  afterAll(() => fixture.cleanup());

  test('returns the combined output in order and the exit code, in the workspace', async () => {
    const result = await fixture.activities.bash({
      workspace: fixture.workspace(),
      command: 'echo out; echo err >&2; echo again; pwd; exit 3',
    });
    expect(result.exitCode).toBe(3);
    expect(result.timedOut).toBe(false);
    expect(result.truncated).toBe(false);
    const [first, second, third, cwd] = result.output.split('\n');
    expect([first, second, third]).toEqual(['out', 'err', 'again']);
    expect(cwd).toMatch(isolated ? /^\/workspace$/ : /\/work$/);
    expect(result.isolation).toBe(isolated ? 'bwrap' : 'none');
    if (!isolated) expect(result.hint).toMatch(/without bubblewrap isolation \((isolation is off|.*not)/);
  });

  test("a pipeline's writer ends when its reader has gone (SIGPIPE and SIGXFSZ keep their default in commands)", async () => {
    const result = await fixture.activities.bash({
      workspace: fixture.workspace(),
      command: 'yes | head -1; echo "writer=${PIPESTATUS[0]}"; trap -p; grep SigIgn /proc/self/status',
    });
    expect(result.output).toMatch(/^y\nwriter=141\n/);
    expect(result.output).not.toMatch(/Broken pipe/);
    // Neither SIGPIPE (13) nor SIGXFSZ (25) is ignored: bits 12 and 24 of the mask are clear.
    const ignored = BigInt(`0x${/SigIgn:\s+([0-9a-f]+)/.exec(result.output)![1]}`);
    expect(ignored & ((1n << 12n) | (1n << 24n))).toBe(0n);
  });

  test('a timeout answers exit 124 with the setsid -f detach recipe and never nohup', async () => {
    const started = Date.now();
    const result = await fixture.activities.bash({ workspace: fixture.workspace(), command: 'echo begun; sleep 30', timeoutMs: 1_000 });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(result).toMatchObject({ exitCode: 124, timedOut: true });
    expect(result.output).toMatch(/^begun\n/);
    expect(result.hint).toContain(DETACH_RECIPE);
    expect(DETACH_RECIPE).toBe(
      'setsid -f sh -c \'<command> > "$TMPDIR/job.log" 2>&1; echo $? > "$TMPDIR/job.exit"\' </dev/null >/dev/null 2>&1',
    );
    expect(result.hint).toContain('wait_for_job');
    expect(`${result.hint} ${result.output}`).not.toMatch(/nohup/i);
  });

  test('a timeout over the 20-minute cap is clamped and said', async () => {
    const result = await fixture.activities.bash({ workspace: fixture.workspace(), command: 'true', timeoutMs: 5_000_000 });
    expect(result.exitCode).toBe(0);
    expect(result.hint).toContain('ran with 1200000');
  });

  test('a plain background job is reaped with the call; a setsid -f job outlives it and jobStatus sees it', async () => {
    const workspace = fixture.workspace();
    // Unisolated, /tmp is the machine's: the job files go to $TMPDIR, which jobStatus maps /tmp/… to.
    const tmp = isolated ? '/tmp' : '$TMPDIR';
    const command = [
      '(sleep 1; echo alive > background.txt) &',
      `setsid -f sh -c 'sleep 1; echo finished > ${tmp}/job.log; echo $? > ${tmp}/job.exit' </dev/null >/dev/null 2>&1`,
      'echo started',
    ].join('\n');
    const result = await fixture.activities.bash({ workspace, command });
    expect(result).toMatchObject({ exitCode: 0, output: 'started\n' });
    expect(await fixture.activities.jobStatus({ workspace, exitFile: '/tmp/job.exit', logFile: '/tmp/job.log' })).not.toHaveProperty(
      'exitCode',
    );
    await waitUntil(async () => (await fixture.activities.jobStatus({ workspace, exitFile: '/tmp/job.exit' })).done);
    expect(await fixture.activities.jobStatus({ workspace, exitFile: '/tmp/job.exit', logFile: '/tmp/job.log' })).toEqual({
      done: true,
      exitCode: 0,
      logTail: 'finished',
    });
    await delay(500);
    // Read where the workspace is (inside its sandbox, when isolated): the plain background job never wrote.
    expect(await fixture.activities.readFile({ workspace, path: 'background.txt' })).toMatchObject({ ok: false, code: 'not_found' });
    // The log is readable through the file tool too, at the path the job wrote it.
    expect(await fixture.activities.readFile({ workspace, path: '/tmp/job.log' })).toMatchObject({ ok: true, content: 'finished\n' });
  });

  test('the detach recipe, exactly as the hint gives it, survives the call', async () => {
    const workspace = fixture.workspace();
    // The recipe keeps its files in $TMPDIR: the sandbox's own /tmp, or the workspace's tmp when
    // unisolated, so two workspaces' jobs never share /tmp/job.exit in either mode.
    const command = DETACH_RECIPE.replace('<command>', 'sleep 1; echo done-by-recipe');
    expect((await fixture.activities.bash({ workspace, command })).exitCode).toBe(0);
    await waitUntil(async () => (await fixture.activities.jobStatus({ workspace, exitFile: '/tmp/job.exit' })).done);
    expect(await fixture.activities.jobStatus({ workspace, exitFile: '/tmp/job.exit', logFile: '/tmp/job.log' })).toEqual({
      done: true,
      exitCode: 0,
      logTail: 'done-by-recipe',
    });
  });

  test('cancellation kills the whole process group and rethrows the cancellation', async () => {
    const workspace = fixture.workspace();
    const environment = new MockActivityEnvironment();
    let heartbeats = 0;
    environment.on('heartbeat', () => (heartbeats += 1));
    const running = environment.run((input: Parameters<typeof fixture.activities.bash>[0]) => fixture.activities.bash(input), {
      workspace,
      command: 'sleep 60 & sleep 60 & wait',
      timeoutMs: 60_000,
    });
    // bash and its two sleeps (plus nsenter when isolated) carry the workspace's marker.
    await waitUntil(() => markedPids(workspace.key).length >= 3);
    await delay(300);
    environment.cancel();
    await expect(running).rejects.toBeInstanceOf(CancelledFailure);
    expect(heartbeats).toBeGreaterThanOrEqual(2);
    expect(markedPids(workspace.key)).toEqual([]);
  });

  test('long output is capped head and tail, and the cut is said', async () => {
    const small = await sandboxFixture({ outputLimit: 1_000, isolation });
    try {
      const result = await small.activities.bash({ workspace: small.workspace(), command: 'seq 1 20000' });
      expect(result.truncated).toBe(true);
      expect(result.output.length).toBeLessThan(1_200);
      expect(result.output.startsWith('1\n2\n3\n')).toBe(true);
      expect(result.output.endsWith('19999\n20000\n')).toBe(true);
      expect(result.output).toMatch(/output truncated: \d+ characters omitted/);
    } finally {
      await small.cleanup();
    }
  });

  test('refuses a call without a workspace or command as a non-retryable failure', async () => {
    await expect(fixture.activities.bash({ workspace: fixture.workspace(), command: ' ' })).rejects.toMatchObject({
      type: 'invalid_input',
      nonRetryable: true,
    });
  });
});
