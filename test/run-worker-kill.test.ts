import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { homeFileOfWorkspaces, writeInLiveWorkspace } from '../activities/sandbox/test-support';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { sendMessage, followRun } from '../cli/commands/ask';
import { runStatusQuery } from '../workflows/contracts';
import { activityCounts } from './helpers/history';
import { sharedEnvironment, uniqueTaskQueue } from './helpers/temporal';
import { testScripts, type TestScripts } from './helpers/scripts';
import { startWorkerProcess, type WorkerProcess } from './helpers/worker-process';
import { waitFor } from './helpers/wait';
import { killProcessesMentioning } from './helpers/processes';

jest.setTimeout(120_000);

/**
 * A run served by a worker process that is SIGKILLed mid-run; a new process takes over.
 * Commands append to ~/cmdlog.txt in the workspace, so a repeated command shows as an
 * extra line; the history shows each model turn and command completed once.
 */
describe('a worker SIGKILLed mid-run', () => {
  let env: TestWorkflowEnvironment;
  let dir: string;
  let dataDir: string;
  let taskQueue: string;
  const workers: WorkerProcess[] = [];
  const startWorker = async () => {
    const worker = await startWorkerProcess({ taskQueue, dataDir, cwd: dir });
    workers.push(worker);
    return worker;
  };
  let scripts: TestScripts;
  const script = (name: string, turns: unknown[]) => scripts.write(name, turns);
  const start = async (message: string, model: string) => {
    const sent = await sendMessage(env.client, taskQueue, message, { agent: 'coding', model, requester: 'tester' });
    if (sent.outcome.kind !== 'run' || !sent.outcome.runId) throw new Error(`no run: ${JSON.stringify(sent.outcome)}`);
    return sent.outcome.runId;
  };
  /** The run's ~/cmdlog.txt (on its workspace's disk), once a command has written it. */
  const commandLog = () => homeFileOfWorkspaces(dataDir, 'cmdlog.txt');

  beforeAll(async () => {
    env = await sharedEnvironment();
    dir = mkdtempSync(join(tmpdir(), 'switchboard-kill-'));
    // The worker runs in `dir`, so it reads this config (and its scripted directory) by default.
    scripts = testScripts(dir);
  });
  beforeEach(() => {
    taskQueue = uniqueTaskQueue('kill');
    dataDir = join(dir, taskQueue);
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
  });
  afterAll(async () => {
    // A SIGKILLed worker leaves its sandbox holder (and a command running in it) behind: end
    // the holders these tests started, found by their workspace paths under `dir`.
    killProcessesMentioning(dir);
    rmSync(dir, { recursive: true, force: true });
    await env.teardown();
  });

  it('killed while the run waits on a wait_for_job timer: the run finishes, nothing is repeated', async () => {
    const model = script('timer', [
      { text: 'First command.', toolCalls: [{ name: 'bash', input: { command: 'echo first >> ~/cmdlog.txt' } }] },
      { text: 'Waiting for the job.', toolCalls: [{ name: 'wait_for_job', input: { exitFile: '/tmp/job.exit', pollSeconds: 10 } }] },
      {
        text: 'Second command.',
        toolCalls: [{ name: 'bash', input: { command: 'echo second >> ~/cmdlog.txt && cat ~/cmdlog.txt' } }],
      },
      { text: 'Log: {{lastToolResult:bash}}' },
    ]);
    const first = await startWorker();
    const runId = await start('run, wait, run', model);
    await waitFor(async () => (await env.client.workflow.getHandle(runId).query(runStatusQuery)).phase === 'waiting');
    await first.kill();
    await startWorker();
    // The job "finishes" only now, so every later step is the new worker's.
    expect(await writeInLiveWorkspace(dataDir, '/tmp/job.exit', '0\n')).toBe(true);
    const record = await followRun(env.client, runId, () => undefined);
    expect(record).toMatchObject({ outcome: 'completed', turns: 4 });
    expect(record.toolCalls.map((call) => [call.name, call.ok])).toEqual([
      ['bash', true],
      ['wait_for_job', true],
      ['bash', true],
    ]);
    expect(await homeFileOfWorkspaces(dataDir, 'cmdlog.txt', { startIdle: true })).toBe('first\nsecond\n');
    expect(record.finalText).toContain('first\nsecond');
    const counts = await activityCounts(env.client, runId);
    expect(counts.modelTurn).toEqual({ scheduled: 4, completed: 4, failed: 0, timedOut: 0 });
    expect(counts.bash).toEqual({ scheduled: 2, completed: 2, failed: 0, timedOut: 0 });
  });

  it('killed during a command: the command is not re-run and the model is told its result is unknown', async () => {
    const model = script('command', [
      {
        text: 'A long command.',
        toolCalls: [{ name: 'bash', input: { command: 'echo ran >> ~/cmdlog.txt; sleep 4747; echo finished' } }],
      },
      { text: 'Told: {{lastToolResult:bash}}' },
    ]);
    const first = await startWorker();
    const runId = await start('run a long command', model);
    await waitFor(async () => Boolean(await commandLog()));
    await first.kill();
    await startWorker();
    // bash's heartbeat timeout (20 s) is how Temporal learns the command's worker is gone.
    const record = await followRun(env.client, runId, () => undefined);
    expect(record).toMatchObject({ outcome: 'completed', turns: 2 });
    expect(record.toolCalls).toEqual([
      expect.objectContaining({ name: 'bash', ok: false, error: expect.stringContaining('did not report a result') }),
    ]);
    expect(record.finalText).toContain('It may or may not have run; check its effects before repeating it.');
    expect(await homeFileOfWorkspaces(dataDir, 'cmdlog.txt', { startIdle: true })).toBe('ran\n');
    const counts = await activityCounts(env.client, runId);
    expect(counts.bash).toEqual({ scheduled: 1, completed: 0, failed: 0, timedOut: 1 });
    expect(counts.modelTurn).toEqual({ scheduled: 2, completed: 2, failed: 0, timedOut: 0 });
  });
});
