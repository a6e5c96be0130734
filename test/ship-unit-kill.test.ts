import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { homeFileOfWorkspaces } from '../activities/sandbox/test-support';
import { join } from 'node:path';
import { type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { stringify } from 'yaml';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import { checksSignal, prEventSignal, shipUnitWorkflowType, unitStateQuery, type RunRecord } from '../workflows/contracts';

import { sharedEnvironment, uniqueTaskQueue } from './helpers/temporal';
import { testScripts, type TestScripts } from './helpers/scripts';
import { startWorkerProcess, type WorkerProcess } from './helpers/worker-process';

jest.setTimeout(300_000);

const finding = {
  severity: 'minor',
  path: 'README.md',
  line: 1,
  title: 'No greeting for the reader',
  scenario: 'A reader opens the README and is not greeted.',
  impact: 'The change is incomplete.',
};

/**
 * One unit lifetime served by worker processes, each SIGKILLed at a different point and
 * replaced by a fresh one: mid-command in coding, with the PR's creation applied and its
 * answer pending, mid model turn in review, in the CI wait, and idle. What Temporal waits
 * for is the price of each kill: bash's 20 s heartbeat, the unit's 25 s write timeout, the
 * model's 30 s heartbeat, a few seconds for a workflow task on a timer.
 */
describe('a ship unit whose worker is SIGKILLed in every phase', () => {
  let env: TestWorkflowEnvironment;
  let github: LocalGitHub;
  let dir: string;
  let scripts: TestScripts;
  let worker: WorkerProcess | undefined;
  const taskQueue = uniqueTaskQueue('unit-kill');
  const repo = `kill-${randomUUID().slice(0, 8)}/app`;

  const startWorker = async () => {
    worker = await startWorkerProcess({
      taskQueue,
      dataDir: join(dir, 'data'),
      cwd: dir,
      env: {
        GITHUB_API_URL: github.apiUrl,
        GITHUB_GIT_URL: github.gitUrl,
        GITHUB_READ_TOKEN: 'read-token',
        GITHUB_WRITE_TOKEN: 'write-token',
        SWITCHBOARD_CONFIG: scripts.configFile,
      },
    });
  };
  const replaceWorker = async () => {
    await worker!.kill();
    await startWorker();
  };

  beforeAll(async () => {
    env = await sharedEnvironment();
    dir = mkdtempSync(join(tmpdir(), 'switchboard-unit-kill-'));
    // A long poll: the CI wait ends only by the `checks` signal this test sends.
    scripts = testScripts(dir, { ship: { checksPollSeconds: 600 } });
    github = await startLocalGitHub({ tokens: { read: ['read-token'], write: ['write-token'] } });
    const [owner, name] = repo.split('/');
    github.createRepo(owner, name, { 'README.md': '# app\n' });
  });
  afterAll(async () => {
    await worker?.stop();
    // A SIGKILLed worker leaves its sandbox holders behind: end the ones under this test's folder.
    killProcessesUnder(dir);
    await github.close();
    rmSync(dir, { recursive: true, force: true });
    await env.teardown();
  });

  it('resumes after each kill and leaves one PR, one review per commit, one report, two pushes', async () => {
    const model = 'scripted:kit/model.yaml';
    writeFileSync(
      join(scripts.dir, 'model.yaml'),
      stringify({
        turns: [
          {
            alternatives: [
              {
                when: { lastUserIncludes: '(review 1 of this unit)' },
                delayMs: 4_000,
                text: 'One finding.',
                toolCalls: [
                  { name: 'submit_review', input: { verdict: 'request_changes', summary: 'Greets nobody yet.', findings: [finding] } },
                ],
              },
              {
                when: { lastUserIncludes: 'of this unit)' },
                text: 'Good.',
                toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Greets the reader.', findings: [] } }],
              },
              {
                when: { lastUserIncludes: 'The review asks' },
                text: 'Fixing.',
                toolCalls: [{ name: 'bash', input: { command: 'echo "Hello, reader." >> README.md' } }],
              },
              // Round 1 starts with a slow test run: the worker dies during it.
              {
                text: 'Running the tests first.',
                toolCalls: [{ name: 'bash', input: { command: 'echo ran >> ~/cmdlog.txt; sleep 4747' } }],
              },
            ],
          },
          {
            alternatives: [
              {
                when: { lastUserIncludes: 'No pull request exists yet' },
                text: 'Greeting.',
                toolCalls: [
                  { name: 'bash', input: { command: 'echo "Hello." >> README.md' } },
                  { name: 'submit_description', input: { title: 'Greet the reader', body: 'Adds a greeting.' } },
                ],
              },
              { text: 'Done.' },
            ],
          },
          { text: 'Done.' },
        ],
      }),
    );
    // The PR's creation is applied at once and its answer held: the worker dies before it learns the number.
    github.faults.holdResponse({ method: 'POST', path: /\/pulls$/ }, 120_000);

    await startWorker();
    const unitId = `unit:${repo}:greet`;
    const unit = await env.client.workflow.start(shipUnitWorkflowType, {
      workflowId: unitId,
      taskQueue,
      args: [
        { unitId, repo, request: 'Greet the reader', model, replyTarget: { kind: 'cli' }, requester: { id: 'tester', surface: 'cli' } },
      ],
    });
    const state = () => unit.query(unitStateQuery);

    // 1. Coding, mid-command: bash is never re-run; the run is told its result is unknown (after bash's 20 s heartbeat).
    await waitFor(async () => Boolean(await commandLog(dir)));
    const codingRun = (await state()).currentRun!;
    await replaceWorker();

    // 2. The PR exists on GitHub but its answer is pending: the retry (after 25 s) finds the marker.
    await waitFor(async () => github.state.countWrites('pull_request.create', repo) === 1, 60_000);
    await replaceWorker();

    // 3. Review, mid model turn (the review's 4 s think): the turn is retried after the model's 30 s heartbeat.
    const reviewing = await waitFor(async () => {
      const now = await state();
      return now.phase === 'review' &&
        now.currentRun?.includes('/review-') &&
        (await modelTurnStarted(env.client.workflow.getHandle(now.currentRun)))
        ? now
        : undefined;
    }, 60_000);
    expect(reviewing.pullRequest).toBe(1);
    // By now the coding run has gone on past the lost command; a re-run would show as a second line
    // (read in a sandbox of the unit's workspace: the review's model turn uses none).
    expect(await commandLog(dir, { startIdle: true })).toBe('ran\n');
    await replaceWorker();

    // 4. The CI wait (a timer): no worker while CI reports; the signal waits in the unit's history.
    const checking = await waitFor(async () => {
      const now = await state();
      return now.phase === 'checks' && now.nextTimer?.purpose === 'checks poll' ? now : undefined;
    }, 120_000);
    expect(checking).toMatchObject({ round: 2, lastReview: { verdict: 'approve', posted: 'confirmed' } });
    await worker!.kill();
    github.setCheckRun(repo, checking.headSha!, { name: 'ci', status: 'completed', conclusion: 'success' });
    await unit.signal(checksSignal, {
      repo,
      number: 1,
      headSha: checking.headSha!,
      source: 'check_run',
      name: 'ci',
      conclusion: 'success',
    });
    await startWorker();

    // 5. Idle: merged while no worker runs.
    await waitFor(async () => ((await state()).phase === 'idle' ? true : undefined), 60_000);
    await worker!.kill();
    await unit.signal(prEventSignal, { repo, number: 1, kind: 'merged', headSha: checking.headSha, deliveryId: 'd-merged' });
    await startWorker();

    const record = await unit.result();
    expect(record).toMatchObject({ outcome: 'merged', rounds: 2, reviews: 2, pullRequest: 1 });

    // The killed command ran once and was reported as unknown, never repeated.
    const coding = (await env.client.workflow.getHandle(codingRun).result()) as RunRecord;
    expect(coding.toolCalls[0]).toMatchObject({ name: 'bash', ok: false, error: expect.stringContaining('did not report a result') });

    // Exactly the effects of one lifetime on GitHub.
    const writes = github.state;
    expect(writes.countWrites('pull_request.create', repo)).toBe(1);
    expect(writes.countWrites('push', repo)).toBe(2);
    expect(writes.countWrites('review.create', repo)).toBe(2);
    expect(writes.countWrites('comment.create', repo)).toBe(1);
    const [owner, name] = repo.split('/');
    const pull = writes.repo(owner, name)!.issues.get(1)!;
    const reviewed = pull.reviews.map((review) => review.commitId);
    expect(reviewed).toEqual([reviewing.headSha, checking.headSha]);
    expect(pull.reviews[0].body).toContain('Verdict: changes requested');
    expect(pull.reviews[1].body).toContain('Verdict: approve');
    expect(pull.comments.map((comment) => comment.body)).toEqual([expect.stringContaining(`Ship unit ${unitId} merged`)]);
    const readme = execFileSync('git', ['--git-dir', writes.repo(owner, name)!.dir, 'show', `${pull.pull!.head}:README.md`]).toString();
    expect(readme).toBe('# app\nHello.\nHello, reader.\n');

    // The PR's creation was confirmed by a second attempt: the one that found the marker.
    const history = await unit.fetchHistory();
    const scheduled = new Map<string, string>();
    const attempts: Record<string, number[]> = {};
    for (const event of history.events ?? []) {
      const type = event.activityTaskScheduledEventAttributes?.activityType?.name;
      if (type) scheduled.set(String(event.eventId), type);
      const started = event.activityTaskStartedEventAttributes;
      if (started) (attempts[scheduled.get(String(started.scheduledEventId))!] ??= []).push(started.attempt ?? 1);
    }
    expect(attempts.openOrUpdatePullRequest).toEqual([2]);
  });
});

/** The coding run's ~/cmdlog.txt (on the unit workspace's disk), once its command has written it. */
function commandLog(dir: string, options: { startIdle?: boolean } = {}): Promise<string | undefined> {
  return homeFileOfWorkspaces(join(dir, 'data'), 'cmdlog.txt', options);
}

async function modelTurnStarted(run: WorkflowHandle): Promise<boolean> {
  const { raw } = await run.describe();
  return (raw.pendingActivities ?? []).some(
    (activity) =>
      activity.activityType?.name === 'modelTurn' &&
      activity.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
  );
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

async function waitFor<T>(check: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let problem: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      problem = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`condition not met in time${problem instanceof Error ? `: ${problem.message}` : ''}`);
}
