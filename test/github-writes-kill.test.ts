import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client } from '@temporalio/client';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { stringify } from 'yaml';
import { followRun, sendMessage } from '../cli/commands/ask';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import { unitBranchName } from '../workflows/unit/branch';
import { mergeSignal, shipUnitWorkflowType, unitStateQuery } from '../workflows/contracts';
import { sharedEnvironment, uniqueTaskQueue } from './helpers/temporal';
import { waitUntil } from './helpers/wait';
import { testScripts, type TestScripts } from './helpers/scripts';
import { startWorkerProcess, type WorkerProcess } from './helpers/worker-process';

jest.setTimeout(300_000);

/**
 * Issue 5's worker-kill case for the GitHub writes that github-worker-kill (a run's comment)
 * and ship-unit-kill (opening the PR) leave out: the local GitHub applies each write and holds
 * its answer, the worker process is SIGKILLed, and a fresh process takes over once the
 * activity's start-to-close timeout ends (25 s for the REST writes, the unit's 1 minute
 * GitHub timeout for the push). Each write must leave exactly one effect and be confirmed.
 */
describe('every remaining GitHub write kind under a worker SIGKILL while GitHub holds the answer', () => {
  let env: TestWorkflowEnvironment;
  let github: LocalGitHub;
  let gitProxy: GitProxy;
  let dir: string;
  let scripts: TestScripts;
  const workers: WorkerProcess[] = [];
  const timings: string[] = [];

  beforeAll(async () => {
    env = await sharedEnvironment();
    dir = mkdtempSync(join(tmpdir(), 'switchboard-writes-kill-'));
    scripts = testScripts(dir);
    github = await startLocalGitHub({ tokens: { read: ['read-token'], write: ['write-token'] } });
    github.createRepo('acme', 'widgets', { 'README.md': '# widgets\n' });
    github.createRepo('acme', 'app', { 'README.md': '# app\n' });
    gitProxy = await startGitProxy(github.gitUrl);
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    // A SIGKILLed worker leaves its sandbox holders and its waiting `git push` behind.
    killProcessesUnder(dir);
    await gitProxy.close();
    await github.close();
    rmSync(dir, { recursive: true, force: true });
    await env.teardown();
    console.log(`github-writes-kill timings:\n${timings.join('\n')}`);
  });

  const startWorker = async (taskQueue: string) => {
    const worker = await startWorkerProcess({
      taskQueue,
      dataDir: join(dir, 'data'),
      cwd: dir,
      env: {
        GITHUB_API_URL: github.apiUrl,
        GITHUB_GIT_URL: gitProxy.url,
        GITHUB_READ_TOKEN: 'read-token',
        GITHUB_WRITE_TOKEN: 'write-token',
      },
    });
    workers.push(worker);
    return worker;
  };
  /** Waits until GitHub has applied the held write, then SIGKILLs the worker and starts a fresh one. */
  const killAfter = async (worker: WorkerProcess, applied: () => boolean, taskQueue: string) => {
    await waitUntil(async () => applied(), Boolean, 120_000, 100);
    await worker.kill();
    return startWorker(taskQueue);
  };

  // Concurrent: the two cases wait out their kills at the same time, on their own task queues and workers.
  it.concurrent('github_issue_create: one issue, and the run records the call as confirmed', async () => {
    const began = Date.now();
    const taskQueue = uniqueTaskQueue('gh-writes-issue');
    const modelFile = join(scripts.dir, 'issue.yaml');
    writeFileSync(
      modelFile,
      stringify({
        turns: [
          {
            text: 'Filing.',
            toolCalls: [{ name: 'github_issue_create', input: { repo: 'acme/widgets', title: 'Gears grind', body: 'They grind.' } }],
          },
          { text: 'GitHub said: {{lastToolResult:github_issue_create}}' },
        ],
      }),
    );
    github.faults.holdResponse({ method: 'POST', path: /^\/repos\/acme\/widgets\/issues$/ }, 120_000);

    const first = await startWorker(taskQueue);
    const sent = await sendMessage(env.client, taskQueue, 'file an issue about the gears', {
      agent: 'general',
      model: 'scripted:kit/issue.yaml',
      requester: 'tester',
    });
    const runId = sent.outcome.runId!;
    await killAfter(first, () => github.state.countWrites('issue.create', 'acme/widgets') === 1, taskQueue);

    const record = await followRun(env.client, runId, () => undefined);
    expect(record.outcome).toBe('completed');
    expect(record.toolCalls).toEqual([{ turn: 1, name: 'github_issue_create', ok: true }]);
    expect(record.finalText).toMatch(/^GitHub said: Issue #1 opened: http:\/\/127\.0\.0\.1:\d+\/acme\/widgets\/issues\/1\.$/);
    expect(github.state.countWrites('issue.create', 'acme/widgets')).toBe(1);
    const issues = [...github.state.repo('acme', 'widgets')!.issues.values()];
    expect(issues).toHaveLength(1);
    expect(issues[0].body).toContain(`switchboard-effect: ${runId}/github_issue_create/`);
    // Confirmed by the second attempt, the retry that looked for the marker and found it.
    expect(await activityAttempts(env.client, runId, 'createIssue')).toEqual([
      { attempt: 2, result: expect.objectContaining({ status: 'confirmed', number: 1 }) },
    ]);
    timings.push(`issue create: ${Date.now() - began} ms`);
  });

  it.concurrent('a ship unit: one push, one review, one merge and one report comment, each confirmed after a kill', async () => {
    const repo = 'acme/app';
    const taskQueue = uniqueTaskQueue('gh-writes-unit');
    const model = 'scripted:kit/unit.yaml';
    writeFileSync(
      join(scripts.dir, 'unit.yaml'),
      stringify({
        turns: [
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
                  { name: 'bash', input: { command: 'echo "Hello." >> README.md' } },
                  { name: 'submit_description', input: { title: 'Greet the reader', body: 'Adds a greeting.' } },
                ],
              },
            ],
          },
          { text: 'Done.' },
        ],
      }),
    );
    // Each fires once: GitHub applies the write at once and keeps the worker waiting for the answer.
    gitProxy.holdNextPush();
    github.faults.holdResponse({ method: 'POST', path: /^\/repos\/acme\/app\/pulls\/\d+\/reviews$/ }, 120_000);
    github.faults.holdResponse({ method: 'PUT', path: /^\/repos\/acme\/app\/pulls\/\d+\/merge$/ }, 120_000);
    github.faults.holdResponse({ method: 'POST', path: /^\/repos\/acme\/app\/issues\/\d+\/comments$/ }, 120_000);

    let worker = await startWorker(taskQueue);
    const unitId = 'unit:acme/app:greet';
    const unit = await env.client.workflow.start(shipUnitWorkflowType, {
      workflowId: unitId,
      taskQueue,
      args: [
        { unitId, repo, request: 'Greet the reader', model, replyTarget: { kind: 'cli' }, requester: { id: 'tester', surface: 'cli' } },
      ],
    });
    const state = () => unit.query(unitStateQuery);
    const writes = (kind: Parameters<LocalGitHub['state']['countWrites']>[0]) => github.state.countWrites(kind, repo);
    let mark = Date.now();
    const lap = (what: string) => {
      timings.push(`${what}: ${Date.now() - mark} ms`);
      mark = Date.now();
    };

    // 1. The push lands on GitHub; its answer is held by the git proxy. The retry (after the 1 minute timeout) finds the branch at its commit.
    worker = await killAfter(worker, () => writes('push') === 1 && gitProxy.held() === 1, taskQueue);
    // CI is green on the pushed commit already, so the unit's first look at the checks moves it to idle.
    const pushed = execFileSync('git', [
      '--git-dir',
      github.state.repo('acme', 'app')!.dir,
      'rev-parse',
      `refs/heads/${unitBranchName(unitId)}`,
    ])
      .toString()
      .trim();
    github.setCheckRun(repo, pushed, { name: 'ci', status: 'completed', conclusion: 'success' });
    const opened = await waitUntil(state, (now) => now.phase === 'review', 120_000);
    lap('push (kill to PR opened)');
    expect(writes('push')).toBe(1);

    // 2. The review is posted, its answer held; the retry finds the marker.
    worker = await killAfter(worker, () => writes('review.create') === 1, taskQueue);
    const idle = await waitUntil(state, (now) => now.phase === 'idle', 120_000);
    lap('review (to idle)');
    expect(idle.lastReview).toMatchObject({ verdict: 'approve', posted: 'confirmed', commitSha: opened.headSha });

    // 3. The merge is applied, its answer held; the retry sees the PR merged at the expected head.
    await unit.signal(mergeSignal, { by: 'tester' });
    worker = await killAfter(worker, () => writes('pull_request.merge') === 1, taskQueue);
    lap('merge applied');

    // 4. The report comment (posted while settling) is applied, its answer held; the retry finds the marker.
    await killAfter(worker, () => writes('comment.create') === 1, taskQueue);
    lap('merge retry to report applied');
    const record = await unit.result();
    lap('report comment (to result)');
    expect(record).toMatchObject({ outcome: 'merged', rounds: 1, reviews: 1, pullRequest: 1 });

    // Exactly one effect of each kind on GitHub.
    expect(writes('push')).toBe(1);
    expect(writes('pull_request.create')).toBe(1);
    expect(writes('review.create')).toBe(1);
    expect(writes('pull_request.merge')).toBe(1);
    expect(writes('comment.create')).toBe(1);
    const stored = github.state.repo('acme', 'app')!;
    const pull = stored.issues.get(1)!;
    expect(pull.reviews.map((review) => review.commitId)).toEqual([opened.headSha]);
    expect(pull.reviews[0].body).toContain(`switchboard-effect: ${unitId}/review/${opened.headSha}`);
    expect(pull.comments).toHaveLength(1);
    expect(pull.comments[0].body).toContain(`Ship unit ${unitId} merged`);
    expect(pull.comments[0].body).toContain(`switchboard-effect: ${unitId}/report-comment`);
    // The branch sits at the one pushed commit: the retry neither pushed again nor met a stale lease.
    const tip = execFileSync('git', ['--git-dir', stored.dir, 'rev-parse', `refs/heads/${opened.branch}`])
      .toString()
      .trim();
    expect(tip).toBe(opened.headSha);
    expect(execFileSync('git', ['--git-dir', stored.dir, 'show', `${tip}:README.md`]).toString()).toBe('# app\nHello.\n');

    // Each write was confirmed by its second attempt, the one that ran on the fresh worker.
    const results = await activityResults(env.client, unitId);
    expect(results.pushBranch).toEqual([{ attempt: 2, result: expect.objectContaining({ status: 'confirmed', sha: tip }) }]);
    expect(results.postReview).toEqual([{ attempt: 2, result: expect.objectContaining({ status: 'confirmed' }) }]);
    expect(results.mergePullRequest).toEqual([{ attempt: 2, result: expect.objectContaining({ status: 'confirmed', number: 1 }) }]);
    expect(results.postComment).toEqual([{ attempt: 2, result: expect.objectContaining({ status: 'confirmed' }) }]);
    expect(results.openOrUpdatePullRequest).toEqual([{ attempt: 1, result: expect.objectContaining({ status: 'confirmed', number: 1 }) }]);
  });
});

interface ActivityOutcome {
  attempt: number;
  result: unknown;
}

/** Per activity type, each completed activity's final attempt and decoded result, from the workflow's history. */
async function activityResults(client: Client, workflowId: string): Promise<Record<string, ActivityOutcome[]>> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const types = new Map<string, string>();
  const attempts = new Map<string, number>();
  const results: Record<string, ActivityOutcome[]> = {};
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name) types.set(String(event.eventId), scheduled.activityType.name);
    const started = event.activityTaskStartedEventAttributes;
    if (started) attempts.set(String(event.eventId), started.attempt ?? 1);
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) {
      const data = completed.result?.payloads?.[0]?.data;
      const result: unknown = data ? JSON.parse(Buffer.from(data).toString('utf8')) : undefined;
      (results[types.get(String(completed.scheduledEventId))!] ??= []).push({
        attempt: attempts.get(String(completed.startedEventId)) ?? 0,
        result,
      });
    }
  }
  return results;
}

async function activityAttempts(client: Client, workflowId: string, type: string): Promise<ActivityOutcome[]> {
  return (await activityResults(client, workflowId))[type] ?? [];
}

interface GitProxy {
  url: string;
  /** Holds the answer of the next push (`git-receive-pack`) once GitHub has applied it. */
  holdNextPush(): void;
  /** How many push answers are being held. */
  held(): number;
  close(): Promise<void>;
}

/**
 * A pass-through in front of the local GitHub's smart HTTP. The REST faults do not reach git's
 * wire, so this is where a push is let through to GitHub whole and its answer kept back: the
 * branch moves, and the pushing worker never hears of it.
 */
async function startGitProxy(target: string): Promise<GitProxy> {
  let holdNext = false;
  let held = 0;
  const server = createServer((req, res) => {
    const hold = holdNext && req.method === 'POST' && (req.url ?? '').endsWith('/git-receive-pack');
    if (hold) holdNext = false;
    const upstream = request(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
      (answer) => {
        if (!hold) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        // Read GitHub's whole answer (the push is applied by then) and never pass it on.
        answer.resume();
        answer.on('end', () => {
          held += 1;
        });
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    holdNextPush: () => {
      holdNext = true;
    },
    held: () => held,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
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
