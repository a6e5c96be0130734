import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { homeFileOfWorkspaces } from '../activities/sandbox/test-support';
import { join } from 'node:path';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import { mergeSignal, shipUnitWorkflowType, unitStateQuery, type RunRecord } from '../workflows/contracts';
import { LOST_WORK_NOTE } from '../workflows/unit/lost-work';
import { sharedEnvironment, uniqueTaskQueue } from './helpers/temporal';
import { testScripts, type TestScripts } from './helpers/scripts';
import { startWorkerProcess, type WorkerProcess } from './helpers/worker-process';

jest.setTimeout(240_000);

/**
 * Issue 17's sixth lost merge, taken on purpose: the worker's whole process group is SIGKILLed
 * while the coding run's only shell command runs (the command dies with it), and the model then
 * ends the run without repeating it. The round has no change because its work was lost, so the
 * unit runs the round again (noted in its record) instead of failing with "the coding run made
 * no change", and goes on to its pull request and merge.
 */
describe('a coding round whose shell command dies with the worker', () => {
  let env: TestWorkflowEnvironment;
  let github: LocalGitHub;
  let dir: string;
  let scripts: TestScripts;
  let worker: WorkerProcess | undefined;
  const taskQueue = uniqueTaskQueue('round-kill');
  const repo = `round-${randomUUID().slice(0, 8)}/app`;

  const startWorker = async () => {
    worker = await startWorkerProcess({
      taskQueue,
      dataDir: join(dir, 'data'),
      cwd: dir,
      group: true,
      env: {
        GITHUB_API_URL: github.apiUrl,
        GITHUB_GIT_URL: github.gitUrl,
        GITHUB_READ_TOKEN: 'read-token',
        GITHUB_WRITE_TOKEN: 'write-token',
        SWITCHBOARD_CONFIG: scripts.configFile,
      },
    });
  };

  beforeAll(async () => {
    env = await sharedEnvironment();
    dir = mkdtempSync(join(tmpdir(), 'switchboard-round-kill-'));
    scripts = testScripts(dir, { ship: { checksPollSeconds: 10 } });
    github = await startLocalGitHub({ tokens: { read: ['read-token'], write: ['write-token'] } });
    const [owner, name] = repo.split('/');
    github.createRepo(owner, name, { 'README.md': '# app\n' });
  });
  afterAll(async () => {
    await worker?.stop();
    killProcessesUnder(dir);
    await github.close();
    rmSync(dir, { recursive: true, force: true });
    await env.teardown();
  });

  it('runs the round again and reaches its pull request and merge', async () => {
    const model = scripts.write('model', [
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Good.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Greets the reader.', findings: [] } }],
          },
          {
            text: 'Greeting.',
            toolCalls: [
              // The log line is written first, so the test kills while the command sleeps.
              { name: 'bash', input: { command: 'echo ran >> ~/cmdlog.txt; sleep 3; echo "Hello." >> README.md' } },
              { name: 'submit_description', input: { title: 'Greet the reader', body: 'Adds a greeting.' } },
            ],
          },
        ],
      },
      // A model that does not check what its lost command did: the round ends with no change.
      { text: 'Done.' },
    ]);
    await startWorker();
    const unitId = `unit:${repo}:greet`;
    const unit = await env.client.workflow.start(shipUnitWorkflowType, {
      workflowId: unitId,
      taskQueue,
      args: [
        { unitId, repo, request: 'Greet the reader', model, replyTarget: { kind: 'cli' }, requester: { id: 'tester', surface: 'cli' } },
      ],
    });

    await waitFor(async () => Boolean(await commandLog(dir)), 60_000);
    const lostRun = (await unit.query(unitStateQuery)).currentRun!;
    await worker!.kill();
    await startWorker();

    const lost = (await env.client.workflow.getHandle(lostRun).result()) as RunRecord;
    expect(lost.outcome).toBe('completed');
    expect(lost.toolCalls[0]).toMatchObject({ name: 'bash', ok: false, error: expect.stringContaining('did not report a result') });

    // The round is run again by a new coding run, told why; then review, CI, idle.
    const idle = await waitFor(async () => {
      const state = await unit.query(unitStateQuery);
      return state.phase === 'idle' ? state : undefined;
    }, 150_000);
    expect(idle).toMatchObject({
      round: 2,
      pullRequest: 1,
      rerunRounds: [{ round: 1, reason: expect.stringContaining('did not report') }],
    });
    const second = (await env.client.workflow.getHandle(`${unitId}/coding-2-1`).result()) as RunRecord;
    expect(second.request).toContain(LOST_WORK_NOTE);
    // The killed command ran once, the re-run once more (the workspace's /tmp goes when the unit settles).
    expect(await commandLog(dir, { startIdle: true })).toBe('ran\nran\n');
    await unit.signal(mergeSignal, { by: 'tester' });

    const record = await unit.result();
    expect(record).toMatchObject({ outcome: 'merged', pullRequest: 1, rerunRounds: [{ round: 1 }] });
    expect(record.report).toContain('ran again');
    // One push, one PR, one merge.
    expect(github.state.countWrites('push', repo)).toBe(1);
    expect(github.state.countWrites('pull_request.create', repo)).toBe(1);
    expect(github.state.countWrites('pull_request.merge', repo)).toBe(1);
  });
});

/** The coding run's ~/cmdlog.txt (on the unit workspace's disk), once its command has written it. */
function commandLog(dir: string, options: { startIdle?: boolean } = {}): Promise<string | undefined> {
  return homeFileOfWorkspaces(join(dir, 'data'), 'cmdlog.txt', options);
}

function killProcessesUnder(folder: string): void {
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(folder)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Gone already, or not ours to read.
    }
  }
}

async function waitFor<T>(check: () => Promise<T | undefined | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let problem: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      problem = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`condition not met in time${problem instanceof Error ? `: ${problem.message}` : ''}`);
}
