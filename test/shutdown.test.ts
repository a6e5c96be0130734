import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { createGitHubActivities, createGitHubIdentities } from '../activities/github';
import { startLocalGitHub } from '../emulators/local-github';
import { projectRoot } from '../infra/paths';
import { SessionLinks } from '../infra/session-links';
import { sendToThread } from '../infra/thread-client';
import { runStatusQuery, stopSignal } from '../workflows/contracts';
import { freePort } from './helpers/ports';
import { logMessages, spawnSwitchboard, type SwitchboardProcess } from './helpers/switchboard-process';
import { testScripts } from './helpers/scripts';
import { testTemporalAddress, uniqueTaskQueue } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(240_000);

/**
 * Ctrl-C (SIGINT) and SIGTERM stop `npm start`, `switchboard worker` and `switchboard server`
 * within a bound and exit 0, also while a run is in the middle of a command and has a detached
 * job in its workspace (whose network door listens in the worker's process); a second signal
 * does not wait for the first one's graceful stop.
 */
describe('shutdown', () => {
  let dir: string;
  const running: SwitchboardProcess[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-shutdown-'));
  });
  afterAll(async () => {
    for (const process of running) await process.stop();
    // Removing the workspaces ends their sandbox holders and the detached jobs in them.
    rmSync(dir, { recursive: true, force: true });
  });

  /** A run of the coding agent (a network door) that detaches a job, then waits in a long command. */
  const midCommand = async (client: Client, taskQueue: string, model: string) => {
    const threadId = `thread:cli:shutdown-${taskQueue}`;
    const outcome = await sendToThread(client, taskQueue, {
      threadId,
      input: { threadId, replyTarget: { kind: 'cli' } },
      message: {
        messageId: `shutdown:${taskQueue}`,
        text: `agent:coding model:${model} wait`,
        requester: { id: 'tester', surface: 'cli' },
      },
      summary: 'shutdown test',
    });
    const runId = outcome!.runId!;
    await waitUntil(
      () => client.workflow.getHandle(runId).query(runStatusQuery),
      (status) => status.phase === 'tools' && status.lastTool === 'bash',
      60_000,
    );
    // The run's status says `bash` once the call is scheduled; a worker holds it only once started.
    // Until then a graceful stop has nothing to wait for, and the process is gone before a second signal.
    await waitUntil(() => bashStarted(client.workflow.getHandle(runId)), Boolean, 60_000);
    return runId;
  };

  /** A message on a thread of its own; the run it started. */
  const ask = async (client: Client, taskQueue: string, text: string) => {
    const threadId = `thread:cli:shutdown-${randomBytes(4).toString('hex')}`;
    const outcome = await sendToThread(client, taskQueue, {
      threadId,
      input: { threadId, replyTarget: { kind: 'cli' } },
      message: { messageId: `shutdown:${threadId}`, text, requester: { id: 'tester', surface: 'cli' } },
      summary: 'shutdown test',
    });
    return outcome!.runId!;
  };

  const script = (scripts: ReturnType<typeof testScripts>) =>
    scripts.write(
      'detach-then-wait',
      [
        'turns:',
        '  - text: "Detaching a job, then waiting."',
        '    toolCalls:',
        `      - { name: bash, input: { command: "setsid -f sh -c 'sleep 900' </dev/null >/dev/null 2>&1; sleep 600", timeoutMs: 900000 } }`,
        '  - text: "never reached"',
        '',
      ].join('\n'),
    );

  /**
   * Sends the signals, each after the process said it is shutting down (signals sent at once
   * would be one), and waits for the exit code: the bound is the process's own.
   */
  const signalAndWait = async (app: SwitchboardProcess, signals: NodeJS.Signals[]) => {
    let exited = false;
    void app.exited.then(() => (exited = true));
    for (const [index, signal] of signals.entries()) {
      if (index === 0) {
        process.kill(app.pid, signal);
        continue;
      }
      await waitUntil(
        async () => logMessages(app.output()),
        (messages) => messages.includes('shutting down'),
      );
      // A signal right on the heels of the first is the same one (npm forwards a terminal's Ctrl-C):
      // a person's second Ctrl-C is sent again until the process takes it and exits.
      await waitUntil(
        async () => {
          if (!exited) process.kill(app.pid, signal);
          return exited;
        },
        Boolean,
        60_000,
        250,
      );
    }
    return app.exited;
  };

  it('npm start: Ctrl-C to its process group mid-command, mid-GitHub-write and with a live stream open stops in order and exits 0', async () => {
    const github = await startLocalGitHub({ tokens: { read: ['read-token'], write: ['write-token'] } });
    github.createRepo('acme', 'shutdown', { 'README.md': '# shutdown\n' });
    const issue = await createGitHubActivities({
      identities: createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl, tokens: { write: 'write-token' } }),
    }).createIssue({ repo: 'acme/shutdown', title: 'Say hello', body: 'Comment here.', effectKey: 'shutdown-issue' });
    const held = await startHoldingProxy(github.apiUrl, (req) => req.method === 'POST' && /\/comments$/.test(req.url ?? ''));
    const secret = randomBytes(32).toString('hex');
    const scripts = testScripts(join(dir, 'all'), { github: { apiUrl: held.url, gitUrl: github.gitUrl } });
    const [temporalPort, uiPort, port] = [await freePort(), await freePort(), await freePort()];
    const env = {
      SWITCHBOARD_CONFIG: scripts.configFile,
      SWITCHBOARD_DATA_DIR: join(dir, 'all', 'data'),
      SWITCHBOARD_TEMPORAL_PORT: String(temporalPort),
      SWITCHBOARD_TEMPORAL_UI_PORT: String(uiPort),
      SWITCHBOARD_SESSION_SECRET: secret,
      GITHUB_READ_TOKEN: 'read-token',
      GITHUB_WRITE_TOKEN: 'write-token',
      PORT: String(port),
      LOG_LEVEL: 'info',
    };
    const start = async () => {
      const app = spawnSwitchboard({ npmStart: true, cwd: projectRoot(), env });
      running.push(app);
      await waitUntil(
        () => fetch(`http://127.0.0.1:${port}/healthz`).then((response) => response.status),
        (status) => status === 200,
        120_000,
      );
      return app;
    };
    const commenter = scripts.write('comment', [
      {
        text: 'Commenting.',
        toolCalls: [{ name: 'github_issue_comment', input: { repo: 'acme/shutdown', number: issue.number, body: 'Hello from a run.' } }],
      },
      { text: 'Commented.' },
    ]);
    const comments = () =>
      github.state
        .repo('acme', 'shutdown')!
        .issues.get(issue.number!)!
        .comments.filter((comment) => comment.body.includes('Hello from a run.'));
    let app = await start();
    const connection = await Connection.connect({ address: `127.0.0.1:${temporalPort}` });
    let writer: string;
    let stream: Promise<string>;
    try {
      const client = new Client({ connection });
      // A command in flight, a GitHub write whose answer GitHub holds, and a live page's stream open.
      const command = await midCommand(client, 'switchboard', script(scripts));
      writer = await ask(client, 'switchboard', `agent:general model:${commenter} in acme/shutdown: comment on #${issue.number}`);
      await waitUntil(
        async () => held.waiting(),
        (waiting) => waiting > 0,
        60_000,
      );
      const links = new SessionLinks(secret, 3_600_000, `http://127.0.0.1:${port}`);
      const events = new URL(links.url(command));
      events.pathname += '/events';
      const response = await fetch(events);
      expect(response.status).toBe(200);
      // Ended by the server as it stops (closed under the reader: the page's EventSource reconnects later).
      stream = response.text().then(
        () => 'ended',
        () => 'closed',
      );
    } finally {
      await connection.close();
    }

    // As a terminal does: SIGINT to every process of the foreground group (npm, node, and whatever they started).
    process.kill(-app.pid, 'SIGINT');
    await waitUntil(
      async () => logMessages(app.output()),
      (messages) => messages.includes('shutting down'),
    );
    // GitHub answers while the worker drains: the write's activity completes against a Temporal still up.
    held.release();
    expect(await app.exited).toBe(0);
    const messages = logMessages(app.output());
    expect(messages).not.toContain('shutdown took too long: skipping what is left');
    expect(messages).not.toContain('second signal: exiting now');
    // The live stream was ended by the server, not left to hold the process.
    expect(['ended', 'closed']).toContain(await stream);
    // Nothing of it still answers: not the HTTP server, not the embedded Temporal.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    await expect(Connection.connect({ address: `127.0.0.1:${temporalPort}`, connectTimeout: 2_000 })).rejects.toThrow();

    // Started again on the same data: the write was recorded done in the first life (once, attempt 1).
    app = await start();
    const again = await Connection.connect({ address: `127.0.0.1:${temporalPort}` });
    try {
      const history = await new Client({ connection: again }).workflow.getHandle(writer).fetchHistory();
      const scheduled = (history.events ?? []).find(
        (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'postComment',
      );
      expect(scheduled).toBeDefined();
      const done = (history.events ?? []).find(
        (event) =>
          event.activityTaskCompletedEventAttributes &&
          String(event.activityTaskCompletedEventAttributes.scheduledEventId) === String(scheduled!.eventId),
      );
      const started = (history.events ?? []).find(
        (event) =>
          event.activityTaskStartedEventAttributes &&
          String(event.activityTaskStartedEventAttributes.scheduledEventId) === String(scheduled!.eventId),
      );
      expect(done).toBeDefined();
      expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(1);
      expect(comments()).toHaveLength(1);
    } finally {
      await again.close();
      process.kill(-app.pid, 'SIGINT');
      expect(await app.exited).toBe(0);
      await held.close();
      await github.close();
    }
  });

  it('switchboard worker: SIGTERM mid-command exits 0; a second signal exits at once without waiting for the command', async () => {
    const connection = await Connection.connect({ address: testTemporalAddress() });
    const client = new Client({ connection });
    try {
      for (const [label, signals, code] of [
        ['graceful', ['SIGTERM'], 0],
        ['forced', ['SIGINT', 'SIGINT'], 130],
      ] as const) {
        const scripts = testScripts(join(dir, label));
        const taskQueue = uniqueTaskQueue(`shutdown-${label}`);
        const worker = spawnSwitchboard({
          cwd: projectRoot(),
          args: ['worker'],
          env: {
            SWITCHBOARD_CONFIG: scripts.configFile,
            SWITCHBOARD_DATA_DIR: join(dir, label, 'data'),
            TEMPORAL_ADDRESS: testTemporalAddress(),
            SWITCHBOARD_TASK_QUEUE: taskQueue,
            LOG_LEVEL: 'info',
          },
        });
        running.push(worker);
        await waitUntil(
          async () => worker.output(),
          (output) => output.includes('SWITCHBOARD_WORKER_READY'),
          60_000,
        );
        const runId = await midCommand(client, taskQueue, script(scripts));
        expect({ label, code: await signalAndWait(worker, [...signals]) }).toEqual({ label, code });
        const messages = logMessages(worker.output());
        expect(messages).toContain('shutting down');
        if (label === 'forced') expect(messages).toContain('second signal: exiting now');
        await client.workflow.getHandle(runId).signal(stopSignal, { reason: 'test over' });
      }
    } finally {
      await connection.close();
    }
  });

  it('switchboard server: SIGTERM with a client connection open exits 0', async () => {
    const scripts = testScripts(join(dir, 'server'));
    const port = await freePort();
    const server = spawnSwitchboard({
      cwd: projectRoot(),
      args: ['server'],
      env: {
        SWITCHBOARD_CONFIG: scripts.configFile,
        SWITCHBOARD_DATA_DIR: join(dir, 'server', 'data'),
        TEMPORAL_ADDRESS: testTemporalAddress(),
        SWITCHBOARD_TASK_QUEUE: uniqueTaskQueue('shutdown-server'),
        PORT: String(port),
        LOG_LEVEL: 'info',
      },
    });
    running.push(server);
    await waitUntil(
      () => fetch(`http://127.0.0.1:${port}/healthz`).then((response) => response.status),
      (status) => status === 200 || status === 503,
      60_000,
    );
    // A keep-alive connection left open by a client does not hold the process.
    await fetch(`http://127.0.0.1:${port}/healthz`, { keepalive: true });
    expect(await signalAndWait(server, ['SIGTERM'])).toBe(0);
    writeFileSync(join(dir, 'server', 'done'), '');
  });
});

/** Whether a worker has started the run's `bash` activity (it is running the command). */
async function bashStarted(run: WorkflowHandle): Promise<boolean> {
  const { raw } = await run.describe();
  return (raw.pendingActivities ?? []).some(
    (activity) =>
      activity.activityType?.name === 'bash' &&
      activity.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
  );
}

/**
 * A reverse proxy in front of the local GitHub's API that holds the requests `holds` picks until
 * `release()`, then passes them on: a GitHub write in flight for as long as the test needs.
 */
async function startHoldingProxy(target: string, holds: (req: IncomingMessage) => boolean) {
  const base = new URL(target);
  const waiting: Array<() => void> = [];
  let released = false;
  const server = createServer((req, res) => {
    const forward = () => {
      const upstream = request(
        new URL(`${base.pathname.replace(/\/$/, '')}${req.url ?? '/'}`, base),
        { method: req.method, headers: { ...req.headers, host: base.host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    if (!released && holds(req)) waiting.push(forward);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    waiting: () => waiting.length,
    release() {
      released = true;
      for (const forward of waiting.splice(0)) forward();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
