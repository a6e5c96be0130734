import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBubblewrap, sandboxFixture } from './test-support';

// The file tools run inside the workspace's sandbox when isolated, on the host when unisolated:
// both must confine paths alike, and never block on what a command left there.
describe.each(['bwrap', 'unisolated-unsafe'] as const)('sandbox files (isolation: %s)', (isolation) => {
  let fixture: Awaited<ReturnType<typeof sandboxFixture>>;
  let outsideDir: string;
  const isolated = isolation === 'bwrap';
  beforeAll(async () => {
    if (isolated) await requireBubblewrap();
    fixture = await sandboxFixture({ isolation, fileLimits: { maxReadBytes: 4_096, maxWriteBytes: 2_048, timeoutMs: 10_000 } });
    outsideDir = await mkdtemp(join(tmpdir(), 'switchboard-outside-'));
    await writeFile(join(outsideDir, 'secret.txt'), 'do not read');
  });
  afterAll(async () => {
    await fixture.cleanup();
    await rm(outsideDir, { recursive: true, force: true });
  });

  const sh = async (workspace: ReturnType<typeof fixture.workspace>, command: string) => {
    const result = await fixture.activities.bash({ workspace, command });
    expect(result).toMatchObject({ exitCode: 0 });
    return result.output;
  };

  test('writes a file (parents created) and reads it back by lines', async () => {
    const workspace = fixture.workspace();
    expect(await fixture.activities.writeFile({ workspace, path: 'src/deep/a.txt', content: 'one\ntwo\nthree\nfour' })).toEqual({
      ok: true,
      path: 'src/deep/a.txt',
      bytes: 18,
    });
    expect(await sh(workspace, 'cat src/deep/a.txt')).toBe('one\ntwo\nthree\nfour');
    expect(await fixture.activities.readFile({ workspace, path: 'src/deep/a.txt' })).toMatchObject({
      ok: true,
      content: 'one\ntwo\nthree\nfour',
      truncated: false,
      totalLines: 4,
    });
    expect(await fixture.activities.readFile({ workspace, path: '/workspace/src/deep/a.txt', offset: 2, limit: 2 })).toMatchObject({
      ok: true,
      content: 'two\nthree',
      truncated: true,
    });
    expect(await fixture.activities.readFile({ workspace, path: 'src/missing.txt' })).toMatchObject({ ok: false, code: 'not_found' });
  });

  test("/tmp paths are the workspace's private tmp, where detached jobs log", async () => {
    const workspace = fixture.workspace();
    await sh(workspace, 'printf "line 1\\nline 2\\n" > "$TMPDIR/job.log"');
    expect(await fixture.activities.readFile({ workspace, path: '/tmp/job.log' })).toMatchObject({ ok: true, content: 'line 1\nline 2\n' });
    expect(await fixture.activities.writeFile({ workspace, path: '/tmp/note.txt', content: 'x' })).toMatchObject({ ok: true });
    expect(await sh(workspace, 'cat "$TMPDIR/note.txt"')).toBe('x');
  });

  test.each([
    ['a parent traversal', '../x'],
    ['a deeper traversal', 'src/../../../etc/passwd'],
    ['an absolute path outside', '/etc/passwd'],
    ['a /tmp traversal', '/tmp/../etc/passwd'],
  ])('refuses %s (%s) for reading and writing', async (_name, path) => {
    const workspace = fixture.workspace();
    expect(await fixture.activities.readFile({ workspace, path })).toMatchObject({ ok: false, code: 'path_outside_workspace', path });
    expect(await fixture.activities.writeFile({ workspace, path, content: 'x' })).toMatchObject({
      ok: false,
      code: 'path_outside_workspace',
    });
  });

  test('refuses symlinks that lead outside, and follows ones that stay inside', async () => {
    const workspace = fixture.workspace();
    // Isolated, the worker's folders are not even in the sandbox: a link to them dangles, and a
    // link to a system file of the sandbox's view is still outside the workspace.
    await sh(workspace, `ln -s ${outsideDir}/secret.txt leak.txt; ln -s ${outsideDir} escape; ln -s /etc/passwd passwd; ln -s /etc etc`);
    const outsideCodes = /^(path_outside_workspace|not_found)$/;
    expect(await fixture.activities.readFile({ workspace, path: 'leak.txt' })).toMatchObject({
      ok: false,
      code: expect.stringMatching(outsideCodes),
    });
    expect(await fixture.activities.readFile({ workspace, path: 'passwd' })).toMatchObject({ ok: false, code: 'path_outside_workspace' });
    expect(await fixture.activities.readFile({ workspace, path: 'etc/hostname' })).toMatchObject({
      ok: false,
      code: 'path_outside_workspace',
    });
    expect(await fixture.activities.readFile({ workspace, path: 'escape/secret.txt' })).toMatchObject({
      ok: false,
      code: expect.stringMatching(outsideCodes),
    });
    // Isolated, that link names /tmp/…, which in the sandbox is the workspace's own tmp (where it dangles).
    expect(await fixture.activities.writeFile({ workspace, path: 'escape/pwned.txt', content: 'x' })).toMatchObject({
      ok: false,
      code: expect.stringMatching(outsideCodes),
    });
    expect(await fixture.activities.writeFile({ workspace, path: 'etc/pwned', content: 'x' })).toMatchObject({
      ok: false,
      code: 'path_outside_workspace',
    });
    expect(await fixture.activities.writeFile({ workspace, path: 'leak.txt', content: 'x' })).toMatchObject({ ok: false });
    expect(existsSync(join(outsideDir, 'pwned.txt'))).toBe(false);
    expect(await fixture.activities.readFile({ workspace, path: join(outsideDir, 'secret.txt') })).toMatchObject({
      ok: false,
      code: expect.stringMatching(outsideCodes),
    });

    await fixture.activities.writeFile({ workspace, path: 'real/file.txt', content: 'inside' });
    await sh(workspace, 'ln -s real alias');
    expect(await fixture.activities.readFile({ workspace, path: 'alias/file.txt' })).toMatchObject({ ok: true, content: 'inside' });
  });

  test('a FIFO, a socket or a device is refused at once, never waited on', async () => {
    const workspace = fixture.workspace();
    await sh(workspace, 'mkfifo pipe; mkfifo "$TMPDIR/job.exit"; ln -s /dev/zero zero');
    const started = Date.now();
    const reads = await Promise.all([
      fixture.activities.readFile({ workspace, path: 'pipe' }),
      fixture.activities.writeFile({ workspace, path: 'pipe', content: 'x' }),
      fixture.activities.jobStatus({ workspace, exitFile: '/tmp/job.exit' }),
      fixture.activities.readFile({ workspace, path: 'zero' }),
    ]);
    expect(reads[0]).toMatchObject({ ok: false, code: 'io_error', error: expect.stringMatching(/not a regular file/) });
    expect(reads[1]).toMatchObject({ ok: false });
    expect(reads[2]).toMatchObject({ done: false, error: expect.stringMatching(/not a regular file/) });
    expect(reads[3]).toMatchObject({ ok: false, code: 'path_outside_workspace' });
    // Well inside the file operations' own 10 s bound: nothing waited for a writer.
    expect(Date.now() - started).toBeLessThan(9_000);
  });

  test('size limits, binary files and directories answer as data', async () => {
    const workspace = fixture.workspace();
    expect(await fixture.activities.writeFile({ workspace, path: 'big.txt', content: 'x'.repeat(3_000) })).toMatchObject({
      ok: false,
      code: 'too_large',
    });
    await sh(workspace, 'head -c 5000 /dev/zero | tr "\\0" y > huge.txt; printf "\\001\\000\\002" > blob.bin');
    expect(await fixture.activities.readFile({ workspace, path: 'huge.txt' })).toMatchObject({ ok: false, code: 'too_large' });
    expect(await fixture.activities.readFile({ workspace, path: 'blob.bin' })).toMatchObject({
      ok: false,
      code: 'io_error',
      error: expect.stringMatching(/binary/),
    });
    expect(await fixture.activities.readFile({ workspace, path: '.' })).toMatchObject({
      ok: false,
      code: 'io_error',
      error: expect.stringMatching(/directory/),
    });
  });

  test('jobStatus says an out-of-workspace file is an error, not a job still running', async () => {
    const workspace = fixture.workspace();
    await fixture.activities.prepareWorkspace({ workspace });
    expect(await fixture.activities.jobStatus({ workspace, exitFile: '/etc/hostname' })).toMatchObject({
      done: false,
      error: expect.stringMatching(/outside the workspace/),
    });
    expect(await fixture.activities.jobStatus({ workspace, exitFile: '/tmp/none.exit' })).toEqual({ done: false });
    expect(await fixture.activities.jobStatus({ workspace: fixture.workspace(), exitFile: '/tmp/job.exit' })).toMatchObject({
      done: false,
      error: expect.stringMatching(/does not exist/),
    });
  });
});
