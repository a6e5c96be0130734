import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { projectRoot } from '../infra/paths';
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
    for (const [index, signal] of signals.entries()) {
      if (index > 0)
        await waitUntil(
          async () => logMessages(app.output()),
          (messages) => messages.includes('shutting down'),
        );
      process.kill(app.pid, signal);
    }
    return app.exited;
  };

  it('npm start (embedded Temporal, worker, server): Ctrl-C mid-command with a detached job exits 0 and leaves nothing listening', async () => {
    const scripts = testScripts(join(dir, 'all'));
    const [temporalPort, uiPort, port] = [await freePort(), await freePort(), await freePort()];
    const app = spawnSwitchboard({
      cwd: projectRoot(),
      env: {
        SWITCHBOARD_CONFIG: scripts.configFile,
        SWITCHBOARD_DATA_DIR: join(dir, 'all', 'data'),
        SWITCHBOARD_TEMPORAL_PORT: String(temporalPort),
        SWITCHBOARD_TEMPORAL_UI_PORT: String(uiPort),
        PORT: String(port),
        LOG_LEVEL: 'info',
      },
    });
    running.push(app);
    await waitUntil(
      () => fetch(`http://127.0.0.1:${port}/healthz`).then((response) => response.status),
      (status) => status === 200,
      120_000,
    );
    const connection = await Connection.connect({ address: `127.0.0.1:${temporalPort}` });
    try {
      await midCommand(new Client({ connection }), 'switchboard', script(scripts));
    } finally {
      await connection.close();
    }
    expect(await signalAndWait(app, ['SIGINT'])).toBe(0);
    expect(logMessages(app.output())).toContain('shutting down');
    // Nothing of it still answers: not the HTTP server, not the embedded Temporal.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    await expect(Connection.connect({ address: `127.0.0.1:${temporalPort}`, connectTimeout: 2_000 })).rejects.toThrow();
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
