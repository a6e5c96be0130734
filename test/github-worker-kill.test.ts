import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { stringify } from 'yaml';
import { createGitHubActivities } from '../activities/github';
import { localGitHubWithIdentities, READ_TOKEN, WRITE_TOKEN } from '../activities/github/test-support';
import { followRun, sendMessage } from '../cli/commands/ask';
import { type LocalGitHub } from '../emulators/local-github';
import { activityCounts } from './helpers/history';
import { sharedEnvironment, uniqueTaskQueue } from './helpers/temporal';
import { testScripts, type TestScripts } from './helpers/scripts';
import { startWorkerProcess, type WorkerProcess } from './helpers/worker-process';

jest.setTimeout(120_000);

/**
 * Issue 5's fault case: a run's `github_issue_comment` reaches the local GitHub, which applies
 * the comment and holds its answer while the worker process is SIGKILLed. A new worker takes
 * over when the write activity's start-to-close timeout ends; its retry finds the marker.
 */
describe('a GitHub write under a worker SIGKILL between request and result', () => {
  let env: TestWorkflowEnvironment;
  let github: LocalGitHub;
  let dir: string;
  let scripts: TestScripts;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    env = await sharedEnvironment();
    const local = await localGitHubWithIdentities();
    github = local.github;
    github.createRepo('acme', 'widgets', { 'README.md': '# widgets\n' });
    const opened = await createGitHubActivities({ identities: local.identities }).createIssue({
      repo: 'acme/widgets',
      effectKey: 'setup/issue/1',
      title: 'Widgets wobble',
      body: 'They wobble.',
    });
    expect(opened.number).toBe(1);
    dir = mkdtempSync(join(tmpdir(), 'switchboard-gh-kill-'));
    scripts = testScripts(dir);
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await github.close();
    rmSync(dir, { recursive: true, force: true });
    await env.teardown();
  });

  const workerOptions = (taskQueue: string) => ({
    taskQueue,
    dataDir: join(dir, 'data'),
    cwd: dir,
    env: { GITHUB_API_URL: github.apiUrl, GITHUB_GIT_URL: github.gitUrl, GITHUB_READ_TOKEN: READ_TOKEN, GITHUB_WRITE_TOKEN: WRITE_TOKEN },
  });

  it('leaves exactly one comment, and the run records the call as confirmed', async () => {
    const taskQueue = uniqueTaskQueue('gh-kill');
    const modelFile = join(scripts.dir, 'comment.yaml');
    writeFileSync(
      modelFile,
      stringify({
        turns: [
          {
            text: 'Commenting.',
            toolCalls: [{ name: 'github_issue_comment', input: { repo: 'acme/widgets', number: 1, body: 'Looking into the wobble.' } }],
          },
          { text: 'GitHub said: {{lastToolResult:github_issue_comment}}' },
        ],
      }),
    );
    github.faults.holdResponse({ method: 'POST', path: /\/issues\/1\/comments$/ }, 120_000);

    const first = await startWorkerProcess(workerOptions(taskQueue));
    workers.push(first);
    const sent = await sendMessage(env.client, taskQueue, 'comment on the widgets issue', {
      agent: 'general',
      model: `scripted:kit/${basename(modelFile)}`,
      requester: 'tester',
    });
    const runId = sent.outcome.runId!;
    await waitFor(() => github.state.countWrites('comment.create', 'acme/widgets') === 1);
    await first.kill();
    workers.push(await startWorkerProcess(workerOptions(taskQueue)));

    const record = await followRun(env.client, runId, () => undefined);
    expect(record.outcome).toBe('completed');
    expect(record.toolCalls).toEqual([{ turn: 1, name: 'github_issue_comment', ok: true }]);
    expect(record.finalText).toMatch(
      /^GitHub said: Comment posted: http:\/\/127\.0\.0\.1:\d+\/acme\/widgets\/issues\/1#issuecomment-\d+\.$/,
    );
    expect(github.state.countWrites('comment.create', 'acme/widgets')).toBe(1);
    const comments = [...github.state.repo('acme', 'widgets')!.issues.get(1)!.comments];
    expect(comments).toHaveLength(1);
    expect(comments[0].body).toContain(`<!-- switchboard-effect: ${runId}/github_issue_comment/1.0 -->`);
    // One activity, completed by its second attempt: the retry that looked for the marker.
    const counts = await activityCounts(env.client, runId);
    expect(counts.postComment).toEqual({ scheduled: 1, completed: 1, failed: 0, timedOut: 0 });
    const history = await env.client.workflow.getHandle(runId).fetchHistory();
    const started = history
      .events!.filter((event) => event.activityTaskStartedEventAttributes)
      .map((event) => event.activityTaskStartedEventAttributes!.attempt);
    expect(started).toContain(2);
  });

  it('wires github_issue_create and github_issue_update: one issue under a dropped response, then changed', async () => {
    const taskQueue = uniqueTaskQueue('gh-issues');
    workers.push(await startWorkerProcess(workerOptions(taskQueue)));
    const modelFile = join(scripts.dir, 'issues.yaml');
    writeFileSync(
      modelFile,
      stringify({
        turns: [
          {
            text: 'Filing.',
            toolCalls: [
              { name: 'github_issue_create', input: { repo: 'acme/widgets', title: 'Gears grind', body: 'They grind.', labels: ['bug'] } },
            ],
          },
          {
            text: 'Closing.',
            toolCalls: [
              { name: 'github_issue_update', input: { repo: 'acme/widgets', number: 2, state: 'closed', labels: ['bug', 'wontfix'] } },
            ],
          },
          { text: 'Created: {{lastToolResult:github_issue_create}} Updated: {{lastToolResult:github_issue_update}}' },
        ],
      }),
    );
    github.faults.dropResponse({ method: 'POST', path: /\/issues$/ });
    const sent = await sendMessage(env.client, taskQueue, 'file and close an issue', {
      agent: 'general',
      model: `scripted:kit/${basename(modelFile)}`,
      requester: 'tester',
    });
    const record = await followRun(env.client, sent.outcome.runId!, () => undefined);
    expect(record.toolCalls.map((call) => [call.name, call.ok])).toEqual([
      ['github_issue_create', true],
      ['github_issue_update', true],
    ]);
    expect(record.finalText).toMatch(/Created: Issue #2 opened: .*\/acme\/widgets\/issues\/2\. Updated: Issue #2 updated/);
    expect(github.state.countWrites('issue.create', 'acme/widgets')).toBe(2); // the setup's issue #1 and this one
    const issue = github.state.repo('acme', 'widgets')!.issues.get(2)!;
    expect(issue).toMatchObject({ title: 'Gears grind', state: 'closed', labels: ['bug', 'wontfix'] });
  });
});

async function waitFor(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
