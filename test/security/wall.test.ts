import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DETACH_RECIPE } from '../../activities/sandbox/hints';
import { requireBubblewrap } from '../../activities/sandbox/test-support';
import { workspaceName } from '../../activities/sandbox/workspace-layout';
import { sendMessage, followRun } from '../../cli/commands/ask';
import { messageSignal, threadStateQuery, threadWorkflowType, type MessageOutcome, type RunRecord } from '../../workflows/contracts';
import { startLocalGitHub, type LocalGitHub } from '../../emulators/local-github';
import { branchHeads } from '../../emulators/local-github/git-store';
import { projectRoot } from '../../infra/paths';
import { startFakeInternet, type FakeInternet } from '../helpers/fake-internet';
import { freePort } from '../helpers/ports';
import { startProductProcess, type ProductProcess } from '../helpers/product-process';
import { testScripts, type TestScripts } from '../helpers/scripts';
import { waitUntil } from '../helpers/wait';
import { parseProbes, probeScript } from './probes';

jest.setTimeout(240_000);

/** Another unit's branch on the run's repository: a run must neither move nor delete it. */
const OTHER_UNIT = 'switchboard/acme/app-other-unit';

/**
 * The wall, tried as an attacker would: the whole product (`npm start`: embedded Temporal
 * with its Web UI, the worker, the HTTP server) with real secrets in its environment, a
 * local GitHub with scoped tokens, and scripted runs whose bash calls probe every way out
 * of the sandbox, while the normal work (clone, build, push, a detached job) still succeeds.
 */
describe('the wall', () => {
  const tag = randomBytes(4).toString('hex');
  // Every secret the product holds carries this, so one pattern finds any of them anywhere.
  const secretPattern: [string, string] = ['wall', `secret${tag}`];
  const secret = (name: string) => `${secretPattern.join('')}-${name}`;
  const secrets = {
    GITHUB_READ_TOKEN: secret('read-token'),
    GITHUB_WRITE_TOKEN: secret('write-token'),
    GITHUB_WEBHOOK_SECRET: secret('webhook'),
    SLACK_SIGNING_SECRET: secret('slack-signing'),
    ANTHROPIC_API_KEY: secret('anthropic'),
  };
  const otherMarker: [string, string] = ['other-work', `space-${tag}`];
  const sleepMarker = 3_000 + Math.floor(Math.random() * 900);
  let dir: string;
  let scripts: TestScripts;
  let github: LocalGitHub;
  let internet: FakeInternet;
  let product: ProductProcess;
  let client: Client;
  let connection: Connection;
  const ports = { temporalGrpc: 0, temporalUi: 0, httpServer: 0 };

  beforeAll(async () => {
    await requireBubblewrap();
    // Short paths, so a chat message can name a workspace file within a model id's 100 characters.
    dir = mkdtempSync(join(tmpdir(), 'sbwall-'));
    // The operator's config (switchboard.yaml in the product's working directory): the suite's scripts.
    scripts = testScripts(dir);
    github = await startLocalGitHub({ tokens: { read: [secrets.GITHUB_READ_TOKEN], write: [secrets.GITHUB_WRITE_TOKEN] } });
    github.createRepo('acme', 'app', {
      'README.md': '# app\n',
      'package.json': JSON.stringify({ name: 'app', version: '1.0.0', scripts: { build: 'node build.js' } }),
      'build.js':
        "require('node:fs').mkdirSync('dist', { recursive: true }); require('node:fs').writeFileSync('dist/out.txt', 'built\\n');\n",
    });
    github.createRepo('acme', 'other', { 'README.md': '# other\n' });
    github.commit('acme/app', OTHER_UNIT, { 'other.txt': 'another unit’s work\n' });
    internet = await startFakeInternet();
    ports.temporalGrpc = await freePort();
    ports.temporalUi = await freePort();
    ports.httpServer = await freePort();
    product = await startProductProcess({
      cwd: dir,
      healthUrl: `http://127.0.0.1:${ports.httpServer}/healthz`,
      env: {
        HOME: dir,
        SWITCHBOARD_DATA_DIR: join(dir, 'data'),
        SWITCHBOARD_TEMPORAL_PORT: String(ports.temporalGrpc),
        SWITCHBOARD_TEMPORAL_UI_PORT: String(ports.temporalUi),
        // On every interface, so the host's other address has a service to probe.
        SWITCHBOARD_HTTP_HOST: '0.0.0.0',
        PORT: String(ports.httpServer),
        GITHUB_API_URL: github.apiUrl,
        GITHUB_GIT_URL: github.gitUrl,
        LOG_LEVEL: 'warn',
        SWITCHBOARD_LOG_FORMAT: 'json',
        ...secrets,
      },
    });
    connection = await Connection.connect({ address: `127.0.0.1:${ports.temporalGrpc}` });
    client = new Client({ connection });
  });

  afterAll(async () => {
    // A failing run (or a hole in the wall) must not leave its escaped job on the machine.
    for (const pid of sleepingWith(sleepMarker)) process.kill(Number(pid), 'SIGKILL');
    await connection?.close();
    await product?.stop();
    await internet?.close();
    await github?.close();
    // Deleting the workspaces ends any sandbox holder left behind.
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function run(name: string, message: string, turns: unknown[], thread?: string): Promise<{ threadId: string; record: RunRecord }> {
    const sent = await sendMessage(client, 'switchboard', `model:${scripts.write(name, turns)} ${message}`, {
      requester: 'mallory',
      ...(thread ? { thread } : {}),
    });
    if (sent.outcome.kind !== 'run' || !sent.outcome.runId) throw new Error(`no run started: ${JSON.stringify(sent.outcome)}`);
    return { threadId: sent.threadId, record: await followRun(client, sent.outcome.runId, () => undefined) };
  }

  it('reports bubblewrap isolation on /healthz, and the secrets are really in the worker to be stolen', async () => {
    const health = (await (await fetch(`http://127.0.0.1:${ports.httpServer}/healthz`)).json()) as { sandbox?: { mode: string } };
    expect(health.sandbox).toMatchObject({ mode: 'bwrap', ready: true });
    const environ = readFileSync(`/proc/${product.pid}/environ`, 'utf8');
    for (const value of Object.values(secrets)) expect(environ).toContain(value);
  });

  let other: { threadId: string; record: RunRecord };
  it('a read identity clones and fetches, but its push is refused at the door', async () => {
    const marker = `printf '%s%s\\n' '${otherMarker[0]}' '${otherMarker[1]}' > marker.txt`;
    other = await run('wall-read', 'agent:explore in acme/app: try to push', [
      {
        text: 'Trying to push with a read identity.',
        toolCalls: [
          {
            name: 'bash',
            input: {
              command: `${marker}; git clone -q ${github.gitUrl}/acme/app.git app && cd app && git ls-remote origin | grep -c refs/heads/main && git -c user.name=r -c user.email=r@example.com commit -q --allow-empty -m read && git push -q origin HEAD:read-push 2>&1; echo "push-exit=$?"`,
            },
          },
        ],
      },
      { text: '{{lastToolResult:bash}}' },
    ]);
    expect(other.record.outcome).toBe('completed');
    expect(other.record.finalText).toMatch(/^1$/m);
    expect(other.record.finalText).toMatch(/identity is 'read': it may fetch but never push/);
    expect(other.record.finalText).toMatch(/push-exit=[1-9]/);
    expect(branchHeads(github.state.repo('acme', 'app')!.dir).has('read-push')).toBe(false);
  });

  let writer: string;
  it('a write run does its normal work (clone, build, push, a detached job) and every probe of the wall is refused', async () => {
    const loopbackPorts = listeningLoopbackPorts();
    const notListening = Object.entries(ports).filter(([, port]) => !loopbackPorts.includes(port));
    expect(notListening).toEqual([]);
    const script = probeScript({
      loopbackPorts,
      named: ports,
      hostAddress: hostAddress(),
      hostPort: ports.httpServer,
      internet: `${internet.address}:${internet.port}`,
      gitHost: new URL(github.gitUrl).host,
      gitUrl: github.gitUrl,
      projectRoot: projectRoot(),
      dataDir: join(dir, 'data'),
      otherWorkspace: join(dir, 'data', 'workspaces', workspaceName(other.threadId)),
      secretPattern,
      otherMarker,
      otherUnitBranch: OTHER_UNIT,
    });
    const headsBefore = branchHeads(github.state.repo('acme', 'app')!.dir);
    const jobs = [
      // A script for a later run, planted where a chat message might try to name it.
      `printf 'turns:\\n  - text: planted script ran\\n' > /workspace/p.yaml`,
      DETACH_RECIPE.replace('<command>', 'sleep 1; echo job-finished'),
      // An escape from the reaper: no workspace marker, its own session.
      `env -u SWITCHBOARD_WORKSPACE setsid -f sleep ${sleepMarker} </dev/null >/dev/null 2>&1`,
    ].join('\n');
    const normalWork = [
      'set -e',
      `git clone -q ${github.gitUrl}/acme/app.git app && cd app`,
      'npm_config_update_notifier=false npm run build --silent',
      'test "$(cat dist/out.txt)" = built',
      'git add -A && git -c user.name=Wall -c user.email=wall@example.com commit -qm "wall build"',
      // Its own branch: the one the run checked out in /workspace for it (under switchboard/).
      'git push -q origin "HEAD:$(git -C /workspace rev-parse --abbrev-ref HEAD)"',
      'echo normal-work-done',
    ].join('\n');
    const write = await run(
      'wall-write',
      'agent:coding in acme/app: probe the wall',
      [
        { text: 'A detached job, and one that tries to escape.', toolCalls: [{ name: 'bash', input: { command: jobs } }] },
        { text: 'Normal work.', toolCalls: [{ name: 'bash', input: { command: normalWork } }] },
        { text: 'Now the wall.', toolCalls: [{ name: 'bash', input: { command: script, timeoutMs: 120_000 } }] },
        {
          text: 'Waiting for the job.',
          toolCalls: [{ name: 'wait_for_job', input: { exitFile: '/tmp/job.exit', logFile: '/tmp/job.log', pollSeconds: 10 } }],
        },
        { text: '{{lastToolResult:bash}}' },
      ],
      `thread:cli:w${tag}`,
    );
    const { record } = write;
    writer = write.threadId;
    const probes = parseProbes(record.finalText);
    const refusedEverywhere = 'direct=closed door=403 tunnel=403';
    expect(probes).toEqual({
      'loopback-temporal-grpc': refusedEverywhere,
      'loopback-temporal-ui': refusedEverywhere,
      'loopback-http-server': refusedEverywhere,
      'loopback-any': 'open=[]',
      'host-address': 'direct=closed door=403',
      metadata: 'direct=closed door=403',
      'private-range': 'door=403 tunnel=403',
      internet: `${internet.greeting} GET /wall`,
      'proc-environ': expect.stringMatching(/^pids=\d+ matches=0$/),
      'credential-fill': 'passwords=0',
      'token-env': 'matches=0',
      'token-files': 'files=0',
      shadow: 'root-lines=0',
      'host-tree': 'absent',
      'data-dir': 'absent',
      'other-workspace': 'path=absent found=0',
      'push-elsewhere': expect.stringMatching(/^exit=[1-9].*may push only to acme\/app, not to acme\/other/),
      // A run writes only the refs it owns: the default branch, a tag, another unit's branch (forced or deleted) are refused at the door.
      'push-default': expect.stringMatching(/^exit=1 Switchboard refused: refs\/heads\/main is not a branch this run owns/),
      'push-tag': 'exit=1 Switchboard refused: refs/tags/wall is a tag: a run never pushes tags',
      'push-other-unit': expect.stringMatching(
        /^exit=1 Switchboard refused: refs\/heads\/switchboard\/acme\/app-other-unit is not a branch this run owns/,
      ),
      'delete-other-unit': expect.stringMatching(/^exit=1 Switchboard refused: .*it may delete only a branch it created/),
    });
    // Nothing of it reached the git host: the default branch and the other unit's branch are where they were, and no tag exists.
    const headsAfter = branchHeads(github.state.repo('acme', 'app')!.dir);
    expect(headsAfter.get('main')).toBe(headsBefore.get('main'));
    expect(headsAfter.get(OTHER_UNIT)).toBe(headsBefore.get(OTHER_UNIT));
    expect(execFileSync('git', ['--git-dir', github.state.repo('acme', 'app')!.dir, 'tag', '--list'], { encoding: 'utf8' })).toBe('');
    expect(branchHeads(github.state.repo('acme', 'other')!.dir).has('wall-elsewhere')).toBe(false);
    // The normal work succeeded all the same.
    expect(record.outcome).toBe('completed');
    expect(record.toolCalls.map((call) => [call.name, call.ok])).toEqual([
      ['bash', true],
      ['bash', true],
      ['bash', true],
      ['wait_for_job', true],
    ]);
    expect(record.jobWaits.polls).toBeGreaterThanOrEqual(1);
    // The push with the write identity landed on the bound repository: one new branch, the run's own.
    const added = [...branchHeads(github.state.repo('acme', 'app')!.dir).keys()].filter((branch) => !headsBefore.has(branch));
    expect(added).toEqual([expect.stringMatching(/^switchboard\/cli-w/)]);

    // Its own pid namespace: a handful of processes, none of the host's.
    expect(Number(/pids=(\d+)/.exec(probes['proc-environ'])![1])).toBeLessThan(20);
    // The run has ended: whatever it started is gone, however it detached.
    const escaped = await waitUntil(
      async () => sleepingWith(sleepMarker),
      (pids) => pids.length === 0,
      10_000,
    ).catch(() => sleepingWith(sleepMarker));
    expect({ 'processes left by the run (env -u … setsid -f sleep)': escaped }).toEqual({
      'processes left by the run (env -u … setsid -f sleep)': [],
    });
  });

  it('a script a run wrote into its workspace cannot drive a later run from chat', async () => {
    // The file is on the workspace's own disk, which the host does not even mount: a chat message can only name a path.
    const planted = join(dir, 'data', 'workspaces', workspaceName(writer), 'data', 'work', 'p.yaml');
    for (const model of [`scripted:${planted}`, `scripted:kit/../data/workspaces/${workspaceName(writer)}/data/work/p.yaml`]) {
      // Short enough to be read as a model id (at most 100 characters), so the refusal is what stops it.
      expect(model.length).toBeLessThanOrEqual(100);
      const outcome = await chatMessage(`agent:explore model:${model} hello`);
      expect(outcome).toMatchObject({ kind: 'refused' });
      expect(outcome.runId).toBeUndefined();
      expect(outcome.reply).toMatch(/I did not use the model .*(absolute path|climbs out)/);
    }
  });

  /** A message as the Slack front end delivers one (a chat surface, not the operator's CLI); resolves with the thread's decision. */
  async function chatMessage(text: string): Promise<MessageOutcome> {
    const threadId = `thread:slack:T0WALL:C0WALL:${Date.now()}.${randomUUID().slice(0, 6)}`;
    const messageId = `Ev${randomUUID()}`;
    const thread = await client.workflow.signalWithStart(threadWorkflowType, {
      workflowId: threadId,
      taskQueue: 'switchboard',
      args: [{ threadId, replyTarget: { kind: 'api' } }],
      signal: messageSignal,
      signalArgs: [{ messageId, text, requester: { id: 'U0MALLORY', surface: 'slack' }, channelId: 'C0WALL' }],
    });
    return waitUntil(
      async () => (await thread.query(threadStateQuery)).outcomes.find((entry) => entry.messageId === messageId),
      (outcome) => outcome !== undefined,
      30_000,
    ) as Promise<MessageOutcome>;
  }
});

/** A non-loopback IPv4 address of this host. */
function hostAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry && entry.family === 'IPv4' && !entry.internal);
  if (!found) throw new Error('this host has no non-loopback IPv4 address to probe');
  return found.address;
}

/** Every TCP port listening on the host's 127.0.0.1 or on all its addresses. */
function listeningLoopbackPorts(): number[] {
  const ports = new Set<number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state !== '0A' || !local) continue;
      const [address, port] = local.split(':');
      if (/^(0100007F|00000000|0{32}|0{24}0100007F|0{16}FFFF00000100007F)$/i.test(address)) ports.add(parseInt(port, 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

function sleepingWith(marker: number): string[] {
  return readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${marker}\0`;
    } catch {
      return false;
    }
  });
}
