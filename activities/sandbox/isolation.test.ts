import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer, type Server } from 'node:net';
import { spawn } from 'node:child_process';
import { commandEnvironment } from './command-environment';
import { createSandboxActivities } from './index';
import { SandboxHost } from './sandbox-host';
import { bubblewrapHere, markedPids, sandboxFixture, waitUntil } from './test-support';
import { workspaceLayout } from './workspace-layout';

const WORKER_SECRET = 'ghs_worker_secret_must_not_leak_41';
const RUN_TOKEN = 'ghs_run_identity_token_7';

// Both paths on every machine: `auto` is bubblewrap wherever it works, `none` the fallback.
describe.each(['auto', 'none'] as const)('sandbox isolation (isolation: %s)', (isolation) => {
  let fixture: Awaited<ReturnType<typeof sandboxFixture>>;
  let isolated: boolean;
  let server: Server;
  let port: number;
  const scopes: string[] = [];
  let secretDir: string;
  beforeAll(async () => {
    // /var/tmp is bound read-only into the sandbox like the rest of the system, unless hidden.
    secretDir = await mkdtemp('/var/tmp/switchboard-secrets-');
    await mkdir(join(secretDir, 'private'));
    await writeFile(join(secretDir, 'private', 'secret.txt'), WORKER_SECRET);
    await writeFile(join(secretDir, 'file-secret.txt'), WORKER_SECRET);
    await writeFile(join(secretDir, 'visible.txt'), 'visible');
    process.env.GITHUB_WRITE_TOKEN = WORKER_SECRET;
    process.env.ANTHROPIC_API_KEY = WORKER_SECRET;
    isolated = isolation === 'auto' && (await bubblewrapHere());
    fixture = await sandboxFixture({
      isolation,
      hiddenPaths: [join(secretDir, 'file-secret.txt'), join(secretDir, 'private')],
      identityToken: async (scope) => {
        scopes.push(scope);
        return `${RUN_TOKEN}-${scope}`;
      },
    });
    server = createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    delete process.env.GITHUB_WRITE_TOKEN;
    delete process.env.ANTHROPIC_API_KEY;
    server.close();
    await fixture.cleanup();
    await rm(secretDir, { recursive: true, force: true });
  });

  test("the worker's secrets are not in the command's environment", async () => {
    const command = isolated ? 'env; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"' : 'env';
    const result = await fixture.activities.bash({ workspace: fixture.workspace(), command });
    expect(result.exitCode).toBe(0);
    expect(result.output).toMatch(/^PATH=/m);
    expect(result.output).toMatch(/^TERM=dumb$/m);
    expect(result.output).not.toContain(WORKER_SECRET);
    expect(result.output).not.toMatch(/^(GITHUB|SLACK|ANTHROPIC|OPENAI)_/m);
  });

  test("the run's identity reaches git credential fill for the git host only, never env", async () => {
    const workspace = fixture.workspace();
    const ask = (host: string) => `printf 'protocol=https\\nhost=${host}\\n\\n' | git credential fill 2>&1`;
    const command = `${ask('github.com')}; echo ---; ${ask('elsewhere.example')}; echo ---; env; printenv`;
    const result = await fixture.activities.bash({ workspace, command, identity: 'read' });
    expect(scopes).toContain('read');
    const [forGithub, forElsewhere, environment] = result.output.split('---\n');
    expect(forGithub).toContain(`password=${RUN_TOKEN}-read`);
    expect(forGithub).toContain('username=x-access-token');
    expect(forElsewhere).not.toContain(RUN_TOKEN);
    expect(environment).not.toContain(RUN_TOKEN);
    // The helper exists for that call only.
    expect(readdirSync(workspaceLayout(fixture.dataDir, workspace).credentials)).toEqual([]);
    const without = await fixture.activities.bash({ workspace, command: ask('github.com') });
    expect(without.output).not.toContain(RUN_TOKEN);
  });

  test('network: false cuts the command off the network when isolated; network: true reaches it', async () => {
    const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3 || echo no-connection`;
    const offline = await fixture.activities.bash({ workspace: fixture.workspace(false), command: connect, timeoutMs: 5_000 });
    const online = await fixture.activities.bash({ workspace: fixture.workspace(true), command: connect, timeoutMs: 5_000 });
    expect(online.output).toContain('hello from the host');
    if (isolated) {
      expect(offline.output).toContain('no-connection');
      expect(offline.output).not.toContain('hello from the host');
    } else {
      // Without bubblewrap there is no network namespace; the result says the call was unisolated.
      expect(offline.isolation).toBe('none');
      expect(offline.output).toContain('hello from the host');
    }
  });

  test("the system is read-only and the worker's data dir is out of view", async () => {
    const workspace = fixture.workspace();
    if (!isolated) {
      // Unisolated commands run with the worker's own rights: nothing to prove but that it is said.
      const result = await fixture.activities.bash({ workspace, command: 'true' });
      expect(result.isolation).toBe('none');
      expect(result.hint).toMatch(/without bubblewrap isolation/);
      return;
    }
    const result = await fixture.activities.bash({
      workspace,
      command: `touch /usr/sandbox-probe && echo wrote-system; ls ${fixture.dataDir}/workspaces >/dev/null 2>&1 && echo sees-data; echo ok > mine.txt && cat mine.txt`,
    });
    expect(result.output).toContain('Read-only file system');
    expect(result.output).not.toContain('wrote-system');
    expect(result.output).not.toContain('sees-data');
    expect(result.output).toContain('ok');
    expect(existsSync('/usr/sandbox-probe')).toBe(false);
    // A path the operator names is hidden; its neighbours stay readable.
    const files = await fixture.activities.bash({
      workspace,
      command: `cat ${secretDir}/visible.txt; echo; cat ${secretDir}/file-secret.txt ${secretDir}/private/secret.txt; echo end`,
    });
    expect(files.output).toMatch(/^visible\n/);
    expect(files.output).not.toContain(WORKER_SECRET);
  });

  test('a restarted worker finds the holder and its job; release stops them and removes the folder', async () => {
    const workspace = fixture.workspace();
    const first = await fixture.activities.prepareWorkspace({ workspace });
    expect(first.isolation).toBe(isolated ? 'bwrap' : 'none');
    await fixture.activities.bash({ workspace, command: 'setsid -f sleep 60 </dev/null >/dev/null 2>&1' });
    await waitUntil(() => markedPids(workspace.key).length === 1);
    const [job] = markedPids(workspace.key);
    const restarted = createSandboxActivities({ dataDir: fixture.dataDir, isolation });
    const again = await restarted.prepareWorkspace({ workspace });
    expect(again.holderPid).toBe(first.holderPid);
    expect(markedPids(workspace.key)).toEqual([job]);
    await restarted.releaseWorkspace({ workspace });
    await waitUntil(() => markedPids(workspace.key).length === 0);
    if (first.holderPid) await waitUntil(() => !existsSync(`/proc/${first.holderPid}`));
    expect(existsSync(workspaceLayout(fixture.dataDir, workspace).root)).toBe(false);
  });

  test('a holder whose workspace folder was deleted without release ends by itself', async () => {
    const workspace = fixture.workspace();
    const { holderPid } = await fixture.activities.prepareWorkspace({ workspace });
    if (!isolated) {
      expect(holderPid).toBeUndefined();
      return;
    }
    expect(holderPid).toEqual(expect.any(Number));
    await rm(workspaceLayout(fixture.dataDir, workspace).root, { recursive: true, force: true });
    await waitUntil(() => !existsSync(`/proc/${holderPid}`), 15_000);
  }, 20_000);

  test('concurrent first calls share one holder, and a holder that died is started again', async () => {
    const workspace = fixture.workspace();
    const results = await Promise.all([1, 2, 3].map((n) => fixture.activities.bash({ workspace, command: `echo call-${n}` })));
    expect(results.map((result) => result.output)).toEqual(['call-1\n', 'call-2\n', 'call-3\n']);
    const { holderPid } = await fixture.activities.prepareWorkspace({ workspace });
    if (!isolated) {
      expect(holderPid).toBeUndefined();
      return;
    }
    expect(holderPid).toEqual(expect.any(Number));
    const { work } = workspaceLayout(fixture.dataDir, workspace);
    const holders = readdirSync('/proc').filter((pid) => /^\d+$/.test(pid) && readFileSafe(`/proc/${pid}/cmdline`).includes(work));
    // The outer bwrap and its pid 1 in the namespace: one sandbox.
    expect(holders).toHaveLength(2);
    process.kill(Number(holderPid), 'SIGKILL');
    await waitUntil(() => !existsSync(`/proc/${holderPid}`));
    const after = await fixture.activities.bash({ workspace, command: 'echo back' });
    expect(after).toMatchObject({ exitCode: 0, output: 'back\n' });
    expect((await fixture.activities.prepareWorkspace({ workspace })).holderPid).not.toBe(holderPid);
  });
});

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

describe.each(['auto', 'none'] as const)("a call's command and the worker (isolation: %s)", (isolation) => {
  test('dies with the process that ran it, so a lost worker leaves no command running', async () => {
    const fixture = await sandboxFixture({ isolation });
    try {
      const workspace = fixture.workspace();
      const host = new SandboxHost(fixture.dataDir, isolation);
      const prepared = await host.prepare(workspace);
      // A stand-in worker: a shell that starts the call's argv and is then killed outright.
      const worker = spawn('sh', ['-c', '"$@" & wait', 'sh', ...host.argv(prepared, false, 'sleep 60')], {
        env: commandEnvironment(prepared.layout, prepared.isolation.mode),
        stdio: 'ignore',
      });
      await waitUntil(() => markedPids(workspace.key).some((pid) => readFileSafe(`/proc/${pid}/cmdline`).startsWith('sleep')));
      worker.kill('SIGKILL');
      await waitUntil(() => !markedPids(workspace.key).some((pid) => readFileSafe(`/proc/${pid}/cmdline`).startsWith('sleep')));
    } finally {
      await fixture.cleanup();
    }
  });
});
