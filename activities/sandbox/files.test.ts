import { existsSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxFixture } from './test-support';
import { workspaceLayout } from './workspace-layout';

describe('sandbox files', () => {
  let fixture: Awaited<ReturnType<typeof sandboxFixture>>;
  let outsideDir: string;
  beforeAll(async () => {
    fixture = await sandboxFixture({ isolation: 'unisolated-unsafe', fileLimits: { maxReadBytes: 4_096, maxWriteBytes: 2_048 } });
    outsideDir = await mkdtemp(join(tmpdir(), 'switchboard-outside-'));
    await writeFile(join(outsideDir, 'secret.txt'), 'do not read');
  });
  afterAll(async () => {
    await fixture.cleanup();
    await rm(outsideDir, { recursive: true, force: true });
  });

  test('writes a file (parents created) and reads it back by lines', async () => {
    const workspace = fixture.workspace();
    expect(await fixture.activities.writeFile({ workspace, path: 'src/deep/a.txt', content: 'one\ntwo\nthree\nfour' })).toEqual({
      ok: true,
      path: 'src/deep/a.txt',
      bytes: 18,
    });
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
    expect(await fixture.activities.readFile({ workspace, path: 'src/missing.txt' })).toMatchObject({
      ok: false,
      code: expect.stringMatching(/^(not_found|path_outside_workspace)$/),
    });
  });

  test("/tmp paths are the workspace's private tmp, where detached jobs log", async () => {
    const workspace = fixture.workspace();
    await fixture.activities.prepareWorkspace({ workspace });
    const layout = workspaceLayout(fixture.dataDir, workspace);
    await writeFile(join(layout.tmp, 'job.log'), 'line 1\nline 2\n');
    expect(await fixture.activities.readFile({ workspace, path: '/tmp/job.log' })).toMatchObject({ ok: true, content: 'line 1\nline 2\n' });
    expect(await fixture.activities.writeFile({ workspace, path: '/tmp/note.txt', content: 'x' })).toMatchObject({ ok: true });
    expect(existsSync(join(layout.tmp, 'note.txt'))).toBe(true);
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
    await fixture.activities.prepareWorkspace({ workspace });
    const { work } = workspaceLayout(fixture.dataDir, workspace);
    await symlink(join(outsideDir, 'secret.txt'), join(work, 'leak.txt'));
    await symlink(outsideDir, join(work, 'escape'));
    await symlink('/etc/passwd', join(work, 'passwd'));
    expect(await fixture.activities.readFile({ workspace, path: 'leak.txt' })).toMatchObject({ ok: false, code: 'path_outside_workspace' });
    expect(await fixture.activities.readFile({ workspace, path: 'passwd' })).toMatchObject({ ok: false, code: 'path_outside_workspace' });
    expect(await fixture.activities.readFile({ workspace, path: 'escape/secret.txt' })).toMatchObject({
      ok: false,
      code: 'path_outside_workspace',
    });
    expect(await fixture.activities.writeFile({ workspace, path: 'escape/pwned.txt', content: 'x' })).toMatchObject({
      ok: false,
      code: 'path_outside_workspace',
    });
    expect(await fixture.activities.writeFile({ workspace, path: 'leak.txt', content: 'x' })).toMatchObject({
      ok: false,
      code: 'path_outside_workspace',
    });
    expect(existsSync(join(outsideDir, 'pwned.txt'))).toBe(false);
    // The machine's /tmp is never reachable: a /tmp/… path always names the private tmp.
    expect(await fixture.activities.readFile({ workspace, path: join(outsideDir, 'secret.txt') })).toMatchObject({
      ok: false,
      code: expect.stringMatching(/^(not_found|path_outside_workspace)$/),
    });

    await fixture.activities.writeFile({ workspace, path: 'real/file.txt', content: 'inside' });
    await symlink(join(work, 'real'), join(work, 'alias'));
    expect(await fixture.activities.readFile({ workspace, path: 'alias/file.txt' })).toMatchObject({ ok: true, content: 'inside' });
  });

  test('size limits, binary files and directories answer as data', async () => {
    const workspace = fixture.workspace();
    expect(await fixture.activities.writeFile({ workspace, path: 'big.txt', content: 'x'.repeat(3_000) })).toMatchObject({
      ok: false,
      code: 'too_large',
    });
    const { work } = workspaceLayout(fixture.dataDir, workspace);
    await writeFile(join(work, 'huge.txt'), 'y'.repeat(5_000));
    expect(await fixture.activities.readFile({ workspace, path: 'huge.txt' })).toMatchObject({ ok: false, code: 'too_large' });
    await writeFile(join(work, 'blob.bin'), Buffer.from([1, 0, 2, 3]));
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
