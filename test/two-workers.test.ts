import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homeFileOfWorkspaces } from '../activities/sandbox/test-support';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { followRun, sendMessage } from '../cli/commands/ask';
import { runStatusQuery } from '../workflows/contracts';
import { activityCounts } from './helpers/history';
import { killProcessesMentioning } from './helpers/processes';
import { testScripts } from './helpers/scripts';
import { sharedEnvironment, uniqueTaskQueue } from './helpers/temporal';
import { waitFor } from './helpers/wait';
import { startWorkerProcess, type WorkerProcess } from './helpers/worker-process';

jest.setTimeout(120_000);

/**
 * Two worker processes on one machine, each with its own data directory (its own host queue).
 * A run's workspace is prepared on worker A; A's whole process group is SIGKILLed while the run
 * waits on a job there; the run notices at the host queue's schedule-to-start bound, finishes
 * on B in a fresh workspace, and the model was told what was lost.
 */
describe('two workers, and the one holding the workspace is killed', () => {
  let env: TestWorkflowEnvironment;
  let dir: string;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    env = await sharedEnvironment();
    dir = mkdtempSync(join(tmpdir(), 'switchboard-hosts-'));
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    killProcessesMentioning(dir);
    rmSync(dir, { recursive: true, force: true });
    await env.teardown();
  });

  /** `name` in the home folder of the workspace on a worker's data directory, once a command has written it. */
  const fileIn = (dataDir: string, name: string) => homeFileOfWorkspaces(dataDir, name);

  it('the run finishes on the surviving worker in a fresh workspace, and the model reads that its workspace was lost', async () => {
    const taskQueue = uniqueTaskQueue('hosts');
    const model = testScripts(dir).write('lost', [
      { text: 'First command.', toolCalls: [{ name: 'bash', input: { command: 'echo first >> ~/cmdlog.txt' } }] },
      { text: 'Waiting for the job.', toolCalls: [{ name: 'wait_for_job', input: { exitFile: '/tmp/job.exit', pollSeconds: 10 } }] },
      {
        text: 'Where am I?',
        toolCalls: [{ name: 'bash', input: { command: 'echo second >> ~/cmdlog.txt; cat ~/cmdlog.txt' } }],
      },
      { text: 'Told: {{lastToolResult:wait_for_job}} Now: {{lastToolResult:bash}}' },
    ]);
    const start = async (name: string) => {
      // Their own disks for workspaces; one claim-check folder, as every worker and client must share.
      const worker = await startWorkerProcess({
        taskQueue,
        dataDir: join(dir, name),
        cwd: dir,
        group: true,
        env: { SWITCHBOARD_PAYLOADS_DIR: join(dir, 'payloads') },
      });
      workers.push(worker);
      return worker;
    };
    const a = await start('a');
    const sent = await sendMessage(env.client, taskQueue, 'run, wait, run', { agent: 'explore', model, requester: 'tester' });
    if (sent.outcome.kind !== 'run' || !sent.outcome.runId) throw new Error(`no run: ${JSON.stringify(sent.outcome)}`);
    const runId = sent.outcome.runId;
    const handle = env.client.workflow.getHandle(runId);
    await waitFor(async () => (await handle.query(runStatusQuery)).phase === 'waiting');
    // B polls the shared queue from now on; the workspace's calls stay on A's host queue.
    await start('b');
    // A job poll after B started: it still goes to A, where the workspace is.
    await waitFor(async () => ((await activityCounts(env.client, runId)).jobStatus?.completed ?? 0) >= 2);
    expect(await fileIn(join(dir, 'a'), 'cmdlog.txt')).toBe('first\n');

    await a.kill();
    const record = await followRun(env.client, runId, () => undefined);

    expect(record).toMatchObject({ outcome: 'completed', turns: 4, workspaceLosses: 1 });
    expect(record.toolCalls.map((call) => [call.name, call.ok])).toEqual([
      ['bash', true],
      ['wait_for_job', false],
      ['bash', true],
    ]);
    // The model's transcript: the notice, then a command in a workspace that starts empty.
    expect(record.finalText).toContain('Told: Your workspace was lost');
    expect(record.finalText).toContain('schedule-to-start timeout');
    expect(record.finalText).toContain('every job still running there');
    const now = record.finalText.split('Now: ')[1];
    expect(now).toContain('second');
    expect(now).not.toContain('first');
    expect(await homeFileOfWorkspaces(join(dir, 'b'), 'cmdlog.txt', { startIdle: true })).toBe('second\n');
    // Where each workspace call was sent: A's host queue until it was lost, then B's.
    const hostQueue = (name: string) => `${taskQueue}@${readFileSync(join(dir, name, 'host-id'), 'utf8').trim()}`;
    expect(record.workspaceHost).toBe(hostQueue('b'));
    const sentTo = (await handle.fetchHistory()).events!.flatMap((event) => {
      const scheduled = event.activityTaskScheduledEventAttributes;
      const type = scheduled?.activityType?.name;
      return type && type !== 'modelTurn' && type !== 'statusCard' && type !== 'deliverReply'
        ? [`${type} ${scheduled.taskQueue?.name}`]
        : [];
    });
    const polls = sentTo.filter((line) => line.startsWith('jobStatus')).length;
    expect(sentTo).toEqual([
      `prepareWorkspace ${taskQueue}`,
      `bash ${hostQueue('a')}`,
      ...Array.from({ length: polls }, () => `jobStatus ${hostQueue('a')}`),
      `prepareWorkspace ${taskQueue}`,
      `bash ${hostQueue('b')}`,
      `closeWorkspace ${hostQueue('b')}`,
    ]);
    expect((await activityCounts(env.client, runId)).jobStatus).toMatchObject({ scheduled: polls, completed: polls - 1, timedOut: 1 });
  });
});
