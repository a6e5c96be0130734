import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { projectRoot } from '../../infra/paths';
import { commandEnvironment } from './command-environment';
import { createSandboxActivities } from './index';
import { SandboxHost } from './sandbox-host';
import { processesOf } from './sandbox-uids';
import { markedPids, requireBubblewrap, sandboxFixture, waitUntil } from './test-support';
import { workspaceLayout } from './workspace-layout';

const WORKER_SECRET = 'ghs_worker_secret_must_not_leak_41';

describe('sandbox isolation (bwrap)', () => {
  let fixture: Awaited<ReturnType<typeof sandboxFixture>>;
  let secretDir: string;
  beforeAll(async () => {
    await requireBubblewrap();
    // Under a system folder the sandbox sees, so only hiddenPaths keeps it out.
    secretDir = await mkdtemp('/usr/local/share/switchboard-secrets-');
    // Readable by anyone, as a secret left under a system folder often is: only hiddenPaths keeps it out.
    await chmod(secretDir, 0o755);
    await mkdir(join(secretDir, 'private'), { mode: 0o755 });
    await writeFile(join(secretDir, 'private', 'secret.txt'), WORKER_SECRET);
    await writeFile(join(secretDir, 'file-secret.txt'), WORKER_SECRET);
    await writeFile(join(secretDir, 'visible.txt'), 'visible');
    process.env.GITHUB_WRITE_TOKEN = WORKER_SECRET;
    process.env.ANTHROPIC_API_KEY = WORKER_SECRET;
    fixture = await sandboxFixture({ isolation: 'bwrap', hiddenPaths: [join(secretDir, 'file-secret.txt'), join(secretDir, 'private')] });
  });
  afterAll(async () => {
    delete process.env.GITHUB_WRITE_TOKEN;
    delete process.env.ANTHROPIC_API_KEY;
    await fixture.cleanup();
    await rm(secretDir, { recursive: true, force: true });
  });

  test("the worker's secrets are neither in the command's environment nor in any /proc it can see", async () => {
    const result = await fixture.activities.bash({
      workspace: fixture.workspace(),
      command: 'env; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"',
    });
    expect(result.exitCode).toBe(0);
    expect(result.output).toMatch(/^PATH=/m);
    expect(result.output).toMatch(/^TERM=dumb$/m);
    expect(result.output).not.toContain(WORKER_SECRET);
    expect(result.output).not.toMatch(/^(GITHUB|SLACK|ANTHROPIC|OPENAI)_/m);
  });

  test('the root is the system folders only, read-only, with /etc secrets, the host tree and the data dir out of view', async () => {
    const workspace = fixture.workspace();
    const probes = [
      'ls -A / | tr "\\n" " "; echo',
      'touch /usr/sandbox-probe 2>&1; touch /new-top-level 2>&1',
      'head -c 200 /etc/shadow /etc/gshadow 2>&1; echo "[shadow-end]"',
      `ls ${fixture.dataDir} ${projectRoot()} /var /home /root 2>&1`,
      'node -e "console.log(\'node\', process.version)"; git --version; bash --version | head -1',
      'echo ok > mine.txt && cat mine.txt',
    ];
    const result = await fixture.activities.bash({ workspace, command: probes.join('; echo "---"; ') });
    const [top, writes, shadow, hostPaths, tools, mine] = result.output.split('---\n');
    const system = new Set(['bin', 'dev', 'etc', 'home', 'lib', 'lib32', 'lib64', 'libx32', 'proc', 'sbin', 'tmp', 'usr', 'workspace']);
    expect(
      top
        .trim()
        .split(' ')
        .filter((entry) => !system.has(entry)),
    ).toEqual([]);
    expect(writes).toMatch(/Read-only file system[\s\S]*Read-only file system/);
    expect(existsSync('/usr/sandbox-probe')).toBe(false);
    expect(shadow).not.toMatch(/root:/);
    expect(hostPaths).not.toMatch(/workspaces|package\.json|temporal/);
    expect(hostPaths.match(/No such file or directory/g)?.length).toBeGreaterThanOrEqual(4);
    expect(tools).toMatch(/node v20/);
    expect(tools).toMatch(/git version/);
    expect(tools).toMatch(/GNU bash/);
    expect(mine).toBe('ok\n');
    // A path the operator names is hidden; its neighbours stay readable.
    const files = await fixture.activities.bash({
      workspace,
      command: `cat ${secretDir}/visible.txt; echo; cat ${secretDir}/file-secret.txt ${secretDir}/private/secret.txt; echo end`,
    });
    expect(files.output).toMatch(/^visible\n/);
    expect(files.output).not.toContain(WORKER_SECRET);
  });

  test('another workspace is out of view, and the commands have no capabilities', async () => {
    const mine = fixture.workspace();
    const theirs = fixture.workspace();
    await fixture.activities.bash({ workspace: theirs, command: 'echo theirs-only > note.txt' });
    const { root } = workspaceLayout(fixture.dataDir, theirs);
    const result = await fixture.activities.bash({
      workspace: mine,
      command: `cat ${root}/work/note.txt 2>&1; grep -r theirs-only / --exclude-dir=proc --exclude-dir=sys --exclude-dir=usr 2>/dev/null; grep CapEff /proc/self/status; mount -t tmpfs none /tmp 2>&1 | head -1`,
    });
    expect(result.output).not.toContain('theirs-only');
    expect(result.output).toMatch(/CapEff:\s+0+\n/);
    expect(result.output).toMatch(/permission denied|must be superuser|Operation not permitted/i);
  });

  test('closing a workspace ends everything it started, however it detached, and keeps its files', async () => {
    const workspace = fixture.workspace();
    const marker = 3000 + Math.floor(Math.random() * 900);
    await fixture.activities.bash({
      workspace,
      command: `echo kept > kept.txt; env -u SWITCHBOARD_WORKSPACE setsid -f sleep ${marker} </dev/null >/dev/null 2>&1; setsid -f sh -c 'trap "" TERM HUP; exec sleep ${marker + 1}' </dev/null >/dev/null 2>&1`,
    });
    const sleeping = () =>
      readdirSync('/proc').filter(
        (pid) =>
          /^\d+$/.test(pid) &&
          /^sleep\0(\d+)\0$/.test(cmdline(pid)) &&
          [`${marker}`, `${marker + 1}`].includes(cmdline(pid).split('\0')[1]),
      );
    await waitUntil(() => sleeping().length === 2);
    expect(await fixture.activities.closeWorkspace({ workspace })).toMatchObject({ holderStopped: true });
    await waitUntil(() => sleeping().length === 0);
    // The next call starts a fresh sandbox on the same files.
    expect(await fixture.activities.bash({ workspace, command: 'cat kept.txt' })).toMatchObject({ exitCode: 0, output: 'kept\n' });
  });

  test('a restarted worker finds the holder and its job; release stops them and removes the folder', async () => {
    const workspace = fixture.workspace();
    const first = await fixture.activities.prepareWorkspace({ workspace });
    expect(first.isolation).toBe('bwrap');
    await fixture.activities.bash({ workspace, command: 'setsid -f sleep 60 </dev/null >/dev/null 2>&1' });
    await waitUntil(() => markedPids(workspace.key).length === 1);
    const [job] = markedPids(workspace.key);
    // The first worker is gone, and its door with it.
    fixture.host.shutDoors();
    const restarted = createSandboxActivities({ dataDir: fixture.dataDir });
    const again = await restarted.prepareWorkspace({ workspace });
    expect(again.holderPid).toBe(first.holderPid);
    expect(markedPids(workspace.key)).toEqual([job]);
    // The restarted worker opened its own door into the same sandbox.
    expect((await restarted.bash({ workspace, command: 'exec 3<>/dev/tcp/127.0.0.1/3128 && echo door-open' })).output).toBe('door-open\n');
    await restarted.releaseWorkspace({ workspace });
    await waitUntil(() => markedPids(workspace.key).length === 0);
    await waitUntil(() => !existsSync(`/proc/${first.holderPid}`));
    expect(existsSync(workspaceLayout(fixture.dataDir, workspace).root)).toBe(false);
  });

  test('a holder whose workspace folder was deleted without release ends by itself, jobs included', async () => {
    const workspace = fixture.workspace();
    const { holderPid } = await fixture.activities.prepareWorkspace({ workspace });
    expect(holderPid).toEqual(expect.any(Number));
    await fixture.activities.bash({ workspace, command: 'setsid -f sleep 60 </dev/null >/dev/null 2>&1' });
    await waitUntil(() => markedPids(workspace.key).length === 1);
    await rm(workspaceLayout(fixture.dataDir, workspace).root, { recursive: true, force: true });
    await waitUntil(() => !existsSync(`/proc/${holderPid}`) && markedPids(workspace.key).length === 0, 15_000);
  }, 20_000);

  test('concurrent first calls share one holder, and a holder that died is started again', async () => {
    const workspace = fixture.workspace();
    const results = await Promise.all([1, 2, 3].map((n) => fixture.activities.bash({ workspace, command: `echo call-${n}` })));
    expect(results.map((result) => result.output)).toEqual(['call-1\n', 'call-2\n', 'call-3\n']);
    const { holderPid } = await fixture.activities.prepareWorkspace({ workspace });
    expect(holderPid).toEqual(expect.any(Number));
    const uid = Number(readFileSync(join(workspaceLayout(fixture.dataDir, workspace).state, 'uid'), 'utf8'));
    const holders = processesOf(uid).filter((pid) => cmdline(String(pid)).startsWith('bwrap'));
    // The outer bwrap and its pid 1 in the namespace: one sandbox.
    expect(holders).toHaveLength(2);
    process.kill(Number(holderPid), 'SIGKILL');
    await waitUntil(() => !existsSync(`/proc/${holderPid}`));
    const after = await fixture.activities.bash({ workspace, command: 'echo back' });
    expect(after).toMatchObject({ exitCode: 0, output: 'back\n' });
    expect((await fixture.activities.prepareWorkspace({ workspace })).holderPid).not.toBe(holderPid);
  });
});

describe('without bubblewrap', () => {
  test('shell and file tools refuse with the fix, unless unisolated mode was configured', async () => {
    const fixture = await sandboxFixture({ probe: async () => ({ mode: 'none', setpriv: true, reason: 'bwrap is not installed' }) });
    try {
      const workspace = fixture.workspace();
      const bash = await fixture.activities.bash({ workspace, command: 'echo ran > ran.txt' });
      expect(bash).toMatchObject({ exitCode: 126, isolation: 'refused' });
      expect(bash.output).toMatch(
        /Refused: shell commands are refused: this worker cannot isolate them \(bwrap is not installed\)\. Fix: install bubblewrap/,
      );
      expect(existsSync(join(workspaceLayout(fixture.dataDir, workspace).work, 'ran.txt'))).toBe(false);
      for (const result of [
        await fixture.activities.readFile({ workspace, path: 'a.txt' }),
        await fixture.activities.writeFile({ workspace, path: 'a.txt', content: 'x' }),
      ])
        expect(result).toMatchObject({ ok: false, code: 'sandbox_unavailable' });
      await expect(fixture.activities.prepareWorkspace({ workspace })).rejects.toMatchObject({
        type: 'sandbox_unavailable',
        nonRetryable: true,
      });
    } finally {
      await fixture.cleanup();
    }
  });
});

describe.each(['bwrap', 'unisolated-unsafe'] as const)("a call's command and the worker (isolation: %s)", (isolation) => {
  test('dies with the process that ran it, so a lost worker leaves no command running', async () => {
    if (isolation === 'bwrap') await requireBubblewrap();
    const fixture = await sandboxFixture({ isolation });
    try {
      const workspace = fixture.workspace();
      const host = new SandboxHost({ dataDir: fixture.dataDir, isolation, gitBaseUrl: 'https://github.com' });
      const prepared = await host.prepare(workspace);
      // A stand-in worker: a shell that starts the call's argv and is then killed outright.
      const worker = spawn('sh', ['-c', '"$@" & wait', 'sh', ...host.commandArgv(prepared, 'sleep 60')], {
        env: commandEnvironment(prepared.layout, prepared.isolation.mode),
        stdio: 'ignore',
      });
      await waitUntil(() => markedPids(workspace.key).some((pid) => cmdline(String(pid)).startsWith('sleep')));
      worker.kill('SIGKILL');
      await waitUntil(() => !markedPids(workspace.key).some((pid) => cmdline(String(pid)).startsWith('sleep')));
      host.shutDoors();
    } finally {
      await fixture.cleanup();
    }
  });
});

function cmdline(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}
