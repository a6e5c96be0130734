import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { HELPER_PROGRAM, SANDBOX_PYTHON } from '../../activities/sandbox/helper/program';
import { requireBubblewrap } from '../../activities/sandbox/test-support';
import { defaultUidRange } from '../../activities/sandbox/sandbox-uids';
import { workspaceName } from '../../activities/sandbox/workspace-layout';
import { followRun, sendMessage } from '../../cli/commands/ask';
import { startLocalGitHub, type LocalGitHub } from '../../emulators/local-github';
import { branchHeads } from '../../emulators/local-github/git-store';
import { type RunRecord } from '../../workflows/contracts';
import { freePort } from '../helpers/ports';
import { startProductProcess, type ProductProcess } from '../helpers/product-process';
import { testScripts, type TestScripts } from '../helpers/scripts';
import { waitFor } from '../helpers/wait';

jest.setTimeout(300_000);

/** What the product lets one workspace use here: small, so the probes that fill them stay cheap. */
const LIMITS = { processes: 200, memoryMiB: 384, tmpMiB: 64, shmMiB: 32, diskMiB: 300 };

/**
 * Issue 22: the workspace is hostile from its first command. The whole product as `npm start`
 * runs it, with real secrets in its environment, and runs whose commands try the four ways to
 * the host the outside review found: root-owned tunables and keyrings, the worker's git on the
 * tree the sandbox wrote, the worker's file I/O on what the sandbox controls, and unbounded use
 * of the host. Each probe prints its evidence; the suite judges it.
 */
describe('the workspace is hostile', () => {
  const tag = randomBytes(4).toString('hex');
  const secrets = {
    GITHUB_READ_TOKEN: `hostile${tag}-read`,
    GITHUB_WRITE_TOKEN: `hostile${tag}-write`,
    ANTHROPIC_API_KEY: `hostile${tag}-anthropic`,
  };
  let dir: string;
  let scripts: TestScripts;
  let github: LocalGitHub;
  let product: ProductProcess;
  let client: Client;
  let connection: Connection;
  let httpPort: number;

  beforeAll(async () => {
    await requireBubblewrap();
    dir = mkdtempSync(join(tmpdir(), 'sbhostile-'));
    scripts = testScripts(dir, { sandbox: { limits: LIMITS } });
    github = await startLocalGitHub({ tokens: { read: [secrets.GITHUB_READ_TOKEN], write: [secrets.GITHUB_WRITE_TOKEN] } });
    github.createRepo('acme', 'app', { 'README.md': '# app\n' });
    const temporalPort = await freePort();
    httpPort = await freePort();
    product = await startProductProcess({
      cwd: dir,
      healthUrl: `http://127.0.0.1:${httpPort}/healthz`,
      env: {
        HOME: dir,
        SWITCHBOARD_DATA_DIR: join(dir, 'data'),
        SWITCHBOARD_TEMPORAL_PORT: String(temporalPort),
        SWITCHBOARD_TEMPORAL_UI_PORT: String(await freePort()),
        PORT: String(httpPort),
        GITHUB_API_URL: github.apiUrl,
        GITHUB_GIT_URL: github.gitUrl,
        LOG_LEVEL: 'warn',
        SWITCHBOARD_LOG_FORMAT: 'json',
        ...secrets,
      },
    });
    connection = await Connection.connect({ address: `127.0.0.1:${temporalPort}` });
    client = new Client({ connection });
  });

  afterAll(async () => {
    await connection?.close();
    await product?.stop();
    await github?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Starts a run as `requester` and answers its thread and run ids. */
  async function start(requester: string, name: string, message: string, turns: unknown[]) {
    const sent = await sendMessage(client, 'switchboard', `model:${scripts.write(name, turns)} ${message}`, { requester });
    if (sent.outcome.kind !== 'run' || !sent.outcome.runId) throw new Error(`no run started: ${JSON.stringify(sent.outcome)}`);
    return { threadId: sent.threadId, runId: sent.outcome.runId };
  }
  const finish = (runId: string): Promise<RunRecord> => followRun(client, runId, () => undefined);
  const healthy = async () => (await fetch(`http://127.0.0.1:${httpPort}/healthz`)).status === 200;
  /** Writes the previous bash result into /tmp/report/<name> inside the sandbox (a heredoc the result cannot end early). */
  const keep = (name: string) =>
    `mkdir -p /tmp/report && cat > /tmp/report/${name} <<'END_OF_RESULT_${tag}'\n{{lastToolResult:bash}}\nEND_OF_RESULT_${tag}`;
  /** A quick run of another person, to show the worker still serves everyone. */
  const bystander = (name: string) =>
    start('alice', name, 'agent:explore say hello', [
      { text: 'Hello.', toolCalls: [{ name: 'bash', input: { command: 'echo alice-was-here' } }] },
      { text: '{{lastToolResult:bash}}' },
    ]);

  it('nobody is root inside: an unprivileged host uid, kernel tunables read-only, keyrings and risky syscalls refused', async () => {
    const marker = 5000 + Math.floor(Math.random() * 900);
    const python = [
      'import ctypes, platform',
      'libc = ctypes.CDLL(None, use_errno=True)',
      "x86 = platform.machine() == 'x86_64'",
      // Real arguments: each would succeed for an ordinary user without the filter.
      "calls = {'add_key': (248 if x86 else 217, b'user', b'k', b'v', 1, ctypes.c_long(-4)), 'keyctl-join': (250 if x86 else 219, 1, 0), 'userfaultfd': (323 if x86 else 282, 1), 'io_uring_setup': (425, 1, ctypes.create_string_buffer(120)), 'unshare-user': (272 if x86 else 97, 0x10000000)}",
      'for name, args in calls.items():',
      '    result = libc.syscall(*args)',
      "    print('syscall', name, 'ok' if result >= 0 else 'errno=%d' % ctypes.get_errno())",
    ].join('\n');
    const probe = [
      'echo "inside-uid=$(id -u) inside-gid=$(id -g)"',
      // Refused twice over: /proc/sys is read-only, and the sandbox user owns no tunable; the error names the first.
      `out=$(sh -c "echo '|/tmp/pwn %p' > /proc/sys/kernel/core_pattern" 2>&1) && echo core-pattern=written || echo "core-pattern=refused ($out)"`,
      'echo 1 > /proc/sysrq-trigger 2>/dev/null && echo sysrq=written || echo sysrq=refused',
      `python3 -c '${python.replace(/'/g, "'\\''")}'`,
      'unshare -U true 2>/dev/null && echo nested-userns=made || echo nested-userns=refused',
      `setsid -f sleep ${marker} </dev/null >/dev/null 2>&1`,
      // The IPv4-translated form of the host's loopback, through the door.
      `echo "translated-loopback=$(curl -s -o /dev/null -w '%{http_code}' -m 5 -x "$HTTP_PROXY" 'http://[::ffff:0:7f00:1]:${httpPort}/healthz')"`,
    ].join('\n');
    // /healthz names the bounds in force (here, the small ones this suite configured).
    const health = (await (await fetch(`http://127.0.0.1:${httpPort}/healthz`)).json()) as {
      sandbox?: { mode: string; bounds?: { user: string; seccomp: string; limits: Record<string, string> } };
    };
    expect(health.sandbox?.mode).toBe('bwrap');
    expect(health.sandbox?.bounds?.user).toMatch(/host uid of its own/);
    expect(health.sandbox?.bounds?.seccomp).toMatch(/syscalls refused/);
    expect(health.sandbox?.bounds?.limits).toMatchObject({ processes: expect.stringMatching(/^200 /), memory: '384 MiB (cgroup)' });
    const coreBefore = readFileSync('/proc/sys/kernel/core_pattern', 'utf8');
    const { runId } = await start('mallory', 'root', 'agent:explore probe for root', [
      { text: 'Probing.', toolCalls: [{ name: 'bash', input: { command: probe } }] },
      // The sandbox stays up a while, for the host-side look below.
      { text: 'Keeping it.', toolCalls: [{ name: 'bash', input: { command: `${keep('root')}\nsleep 15` } }] },
      { text: 'Reading it.', toolCalls: [{ name: 'bash', input: { command: 'cat /tmp/report/root' } }] },
      { text: '{{lastToolResult:bash}}' },
    ]);
    let sleeper: string | undefined;
    await waitFor(async () => (sleeper = processWithCmdline(`sleep\0${marker}\0`)) !== undefined, 90_000);
    // From the host: every process of the sandbox runs as the workspace's own uid, none as root.
    const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${sleeper}/status`, 'utf8'))![1]);
    // The deployment's own range (sandbox.uids unset: derived from its data dir).
    const range = defaultUidRange(join(dir, 'data'));
    expect(uid).toBeGreaterThanOrEqual(range.first);
    expect(uid).toBeLessThan(range.first + range.count);
    const namespace = readlinkSync(`/proc/${sleeper}/ns/pid`);
    const members = processesIn(namespace);
    expect(members.length).toBeGreaterThan(2);
    // A command entering just now is host root until its helper has confined it and changed uid
    // (activities/sandbox/entry-argv.ts: out of every workspace process's reach, and gone within
    // milliseconds). Any other process as root is a hole; and the entry's moment passes.
    expect(members.filter((member) => member.uid === 0 && !isEntryChain(member.pid))).toEqual([]);
    await waitFor(async () => processesIn(namespace).every((member) => member.uid !== 0), 30_000);
    const record = await finish(runId);
    expect(record.outcome).toBe('completed');
    const seen = record.finalText;
    expect(seen).toContain('inside-uid=1000 inside-gid=1000');
    expect(seen).toMatch(/core-pattern=refused \(.*Read-only file system\)/);
    expect(seen).toContain('sysrq=refused');
    for (const call of ['add_key', 'keyctl-join', 'userfaultfd', 'io_uring_setup', 'unshare-user'])
      expect(seen).toContain(`syscall ${call} errno=1\n`);
    expect(seen).toContain('nested-userns=refused');
    expect(seen).toContain('translated-loopback=403');
    expect(readFileSync('/proc/sys/kernel/core_pattern', 'utf8')).toBe(coreBefore);
    // The run is over: its processes went with it.
    await waitFor(async () => processWithCmdline(`sleep\0${marker}\0`) === undefined, 30_000);
  });

  it("what a run plants in its checkout never runs as root, never sees a secret, and the run's commit and push land where they should", async () => {
    // Every planted program records who ran it and whether it saw a secret, in the sandbox's /tmp.
    const recorder = (name: string) =>
      `printf '#!/bin/sh\\necho "%s uid=$(id -u) secrets=$(env | grep -c ${tag})" >> /tmp/fired\\ncat 2>/dev/null\\n' ${name} > /tmp/${name}; chmod +x /tmp/${name}`;
    const plant = [
      'set -e',
      ...['pre-commit', 'commit-msg', 'post-commit', 'pre-push', 'reference-transaction', 'fsmonitor', 'filter', 'ssh'].map(recorder),
      'mkdir -p .git/hooks .git/info',
      'for hook in pre-commit commit-msg post-commit pre-push reference-transaction; do cp /tmp/$hook .git/hooks/$hook; done',
      'git config core.hooksPath .git/hooks',
      'git config core.fsmonitor /tmp/fsmonitor',
      'git config filter.x.clean /tmp/filter && echo "* filter=x" > .git/info/attributes',
      'git config core.sshCommand /tmp/ssh',
      // Redirect the git host elsewhere, and pull in more configuration from a file of ours.
      `git config url.http://127.0.0.1:9/stolen/.insteadOf ${github.gitUrl}/`,
      'printf "[core]\\n\\tfsmonitor = /tmp/fsmonitor\\n" > /tmp/extra.config && git config include.path /tmp/extra.config',
      'echo "a change" > change.txt',
      'echo planted',
    ].join('\n');
    const { runId } = await start('mallory', 'plant', 'agent:coding in acme/app: plant and submit', [
      { text: 'Planting.', toolCalls: [{ name: 'bash', input: { command: plant } }] },
      {
        text: 'Submitting.',
        toolCalls: [{ name: 'submit_description', input: { title: 'A change', body: 'Planted things, then this change.' } }],
      },
      { text: 'Reading what fired.', toolCalls: [{ name: 'bash', input: { command: 'cat /tmp/fired 2>/dev/null; echo end-of-fired' } }] },
      { text: '{{lastToolResult:bash}}' },
    ]);
    const record = await finish(runId);
    expect(record.toolCalls.map((call) => [call.name, call.ok])).toEqual([
      ['bash', true],
      ['submit_description', true],
      ['bash', true],
    ]);
    // Whatever ran, ran as the sandbox user and saw no secret; none of it as root.
    const fired = record.finalText.split('\n').filter((line) => line.includes(' uid='));
    for (const line of fired) expect(line).toMatch(/ uid=1000 secrets=0$/);
    // Our own steps ran no hook, fsmonitor or ssh command, and went to the real git host.
    expect(fired.filter((line) => /^(pre-commit|commit-msg|post-commit|pre-push|reference-transaction|fsmonitor|ssh) /.test(line))).toEqual(
      [],
    );
    const branch = [...branchHeads(github.state.repo('acme', 'app')!.dir).keys()].find((name) => name.startsWith('switchboard/'));
    expect(branch).toBeDefined();
    expect(github.state.countWrites('push', 'acme/app')).toBe(1);
  });

  it("FIFOs, devices and a link swapped under the file tools stall nothing: another person's run completes meanwhile", async () => {
    const setup = [
      'for i in 1 2 3 4; do mkfifo fifo$i; done',
      'mkdir -p swap',
      // A link swapped in and out under the writes, pointing out of the workspace.
      "setsid -f sh -c 'while :; do rm -rf swap; ln -s /etc swap; rm -f swap; mkdir swap; done' </dev/null >/dev/null 2>&1",
      'echo ready',
    ].join('\n');
    const reads = [1, 2, 3, 4].map((i) => ({ name: 'read_file', input: { path: `fifo${i}` } }));
    const writes = [1, 2, 3, 4].map((i) => ({ name: 'write_file', input: { path: `swap/written-${i}.txt`, content: 'x' } }));
    const mallory = await start('mallory', 'fifo', 'agent:coding try the file tools', [
      { text: 'Setting up.', toolCalls: [{ name: 'bash', input: { command: setup } }] },
      { text: 'Reading FIFOs.', toolCalls: reads },
      { text: 'Writing through the swapping link.', toolCalls: writes },
      { text: 'done' },
    ]);
    const alice = await bystander('fifo-bystander');
    const [malloryRecord, aliceRecord] = await Promise.all([finish(mallory.runId), finish(alice.runId)]);
    expect(aliceRecord.outcome).toBe('completed');
    expect(aliceRecord.finalText).toContain('alice-was-here');
    expect(malloryRecord.outcome).toBe('completed');
    const results = malloryRecord.toolCalls.filter((call) => call.name === 'read_file');
    expect(results).toHaveLength(4);
    for (const call of results) expect(call).toMatchObject({ ok: false, error: expect.stringMatching(/not a regular file/) });
    // Nothing was created outside the workspace, on the host or in the sandbox's read-only /etc.
    for (let i = 1; i <= 4; i += 1) expect(existsSync(`/etc/written-${i}.txt`)).toBe(false);
    expect(await healthy()).toBe(true);
  });

  it('a fork storm, a memory hog and disk, /tmp and /dev/shm fillers each fail their own command; the worker and another run stay healthy', async () => {
    const storm = `n=0; while [ $n -lt 2000 ]; do setsid -f sleep 1000 </dev/null >/dev/null 2>&1 || break; n=$((n + 1)); done; echo "detached=$n"`;
    const hog = `python3 -c "b = bytearray(${LIMITS.memoryMiB * 3} * 1024 * 1024); print('allocated', len(b))"; echo "hog-exit=$?"`;
    // Each filler fails its command and leaves its filesystem full for the call's look; the next step frees it.
    const disk = 'dd if=/dev/zero of=big bs=1M count=1000 2>&1 | grep -v records; false';
    const tmp = 'dd if=/dev/zero of=/tmp/big bs=1M count=500 2>&1 | grep -v records; false';
    const shm = 'dd if=/dev/zero of=/dev/shm/big bs=1M count=500 2>&1 | grep -v records; false';
    const turns = [
      { text: 'Storm.', toolCalls: [{ name: 'bash', input: { command: storm, timeoutMs: 120_000 } }] },
      { text: 'Hog.', toolCalls: [{ name: 'bash', input: { command: `${keep('storm')}\npkill sleep; ${hog}` } }] },
      { text: 'Disk.', toolCalls: [{ name: 'bash', input: { command: `${keep('hog')}\n${disk}` } }] },
      { text: 'Tmp.', toolCalls: [{ name: 'bash', input: { command: `rm -f big\n${keep('disk')}\n${tmp}` } }] },
      { text: 'Shm.', toolCalls: [{ name: 'bash', input: { command: `rm -f /tmp/big\n${keep('tmp')}\n${shm}` } }] },
      {
        text: 'Report.',
        toolCalls: [
          {
            name: 'bash',
            input: {
              command: `rm -f /dev/shm/big\n${keep('shm')}\nfor f in storm hog disk tmp shm; do echo "== $f"; cat /tmp/report/$f; done`,
            },
          },
        ],
      },
      { text: '{{lastToolResult:bash}}' },
    ];
    const mallory = await start('mallory', 'bounds', 'agent:coding use everything', turns);
    const alice = await bystander('bounds-bystander');
    const aliceRecord = await finish(alice.runId);
    expect(aliceRecord.outcome).toBe('completed');
    expect(aliceRecord.finalText).toContain('alice-was-here');
    const record = await finish(mallory.runId);
    expect(record.outcome).toBe('completed');
    const report = Object.fromEntries(
      record.finalText
        .split(/^== /m)
        .filter(Boolean)
        .map((part) => [part.slice(0, part.indexOf('\n')), part.slice(part.indexOf('\n') + 1)]),
    );
    expect(Number(/detached=(\d+)/.exec(report.storm)![1])).toBeLessThan(LIMITS.processes);
    expect(report.storm).toMatch(/bound of 200 processes/);
    expect(report.hog).not.toMatch(/^allocated /m);
    expect(report.hog).toMatch(/killed for memory: the workspace may use 384 MiB/);
    for (const part of ['disk', 'tmp', 'shm']) expect(report[part]).toMatch(/No space left on device/);
    // Said from the filesystems' own counters (statvfs in the sandbox), each with its size.
    expect(report.disk).toMatch(/The workspace's disk \(\/workspace and \$HOME\) is full: it holds 300 MiB/);
    expect(report.tmp).toMatch(/\/tmp is full: it holds 64 MiB/);
    expect(report.shm).toMatch(/\/dev\/shm is full: it holds 32 MiB/);
    // The image on the worker's disk holds no more than its bound.
    const image = join(dir, 'data', 'workspaces', workspaceName(mallory.threadId), 'disk.img');
    expect(statSync(image).blocks * 512).toBeLessThanOrEqual(LIMITS.diskMiB * 1024 * 1024);
    expect(await healthy()).toBe(true);
  });
});

/** The pid of the process whose cmdline is exactly `cmdline`, if one runs. */
function processWithCmdline(cmdline: string): string | undefined {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8') === cmdline) return pid;
    } catch {
      // Ended while we looked.
    }
  }
  return undefined;
}

/** Every process in a pid namespace (by its `pid:[inode]` link), with its real uid. */
/** Whether a process is a link of a command's entry chain (nsenter, then our helper program), by its argv. */
function isEntryChain(pid: string): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv[0] === 'nsenter' || (argv[0] === SANDBOX_PYTHON && argv.includes(HELPER_PROGRAM));
  } catch {
    return true; // Ended while we looked: it was no lasting process.
  }
}

function processesIn(namespace: string): Array<{ pid: string; uid: number; command: string }> {
  const found: Array<{ pid: string; uid: number; command: string }> = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readlinkSync(`/proc/${pid}/ns/pid`) !== namespace) continue;
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      found.push({ pid, uid: Number(/^Uid:\s+(\d+)/m.exec(status)![1]), command: /^Name:\s+(.*)$/m.exec(status)![1] });
    } catch {
      // Ended while we looked.
    }
  }
  return found;
}
