import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { type WorkflowHandle } from '@temporalio/client';
import { workspaceLayout } from '../activities/sandbox/workspace-layout';
import { resolveTemporalBinary } from '../infra/temporal-binaries';
import { awaitOutcome, deliverToThread } from '../infra/thread-client';
import { planWorkflowType, type shipUnitWorkflowType, type RunRecord, type UnitRecord } from '../workflows/contracts';
import { Outcome, Phase } from '../workflows/search-attributes';
import { REPO, startShipKit, type ShipKit } from './helpers/ship-kit';
import { testTemporalAddress } from './helpers/temporal';
import { waitFor, waitUntil } from './helpers/wait';

jest.setTimeout(120_000);
const run = promisify(execFile);

/**
 * Issue 11, item 5: a cancellation request (what `temporal workflow cancel` and the Web UI's
 * "Request Cancellation" send) of each workflow type, mid-command, ends it the way `stop`
 * does: the command's process group killed, the record, `Phase`/`Outcome`, the workspace
 * released, the report posted in the conversation (an issue on the local GitHub). Item 6: a
 * unit whose phase fails non-retryably settles `failed` with the reason.
 */
describe('cancel is a stop', () => {
  let ship: ShipKit;
  beforeAll(async () => {
    ship = await startShipKit('cancel');
  });
  afterAll(async () => {
    await ship.close();
  });

  const client = () => ship.kit.client;
  /** A conversation to answer in: an issue of the local GitHub, like a PR mention's. */
  const conversation = async (title: string) => {
    const response = await fetch(`${ship.github.apiUrl}/repos/${REPO}/issues`, {
      method: 'POST',
      headers: { authorization: 'token write-token', 'content-type': 'application/json' },
      body: JSON.stringify({ title }),
    });
    const { number } = (await response.json()) as { number: number };
    const issue = () => ship.github.state.repo('acme', 'app')!.issues.get(number)!;
    return { target: { kind: 'github' as const, repo: REPO, pullRequest: number }, comments: () => issue().comments.map((c) => c.body) };
  };
  const attributes = async (handle: WorkflowHandle) => {
    const description = await handle.describe();
    const { typedSearchAttributes } = description;
    return { status: description.status.name, phase: typedSearchAttributes.get(Phase), outcome: typedSearchAttributes.get(Outcome) };
  };
  const sleeper = (name: string, seconds: number) =>
    ship.kit.script(name, [
      { text: 'A long command.', toolCalls: [{ name: 'bash', input: { command: `sleep ${seconds}; echo never` } }] },
      { text: 'should not be reached' },
    ]);
  /** What the Web UI shows as "Current details", read as an operator would (`temporal workflow metadata`). */
  const currentDetails = async (workflowId: string) => {
    const cli = resolveTemporalBinary('cli').path;
    const { stdout } = await run(cli, [
      'workflow',
      'metadata',
      '--address',
      testTemporalAddress(),
      '--workflow-id',
      workflowId,
      '-o',
      'json',
    ]);
    return stdout;
  };
  const workspaceOf = (key: string) => workspaceLayout(ship.kit.dataDir, { key, network: true }).root;

  async function startThread(model: string, replyTarget: Awaited<ReturnType<typeof conversation>>['target']) {
    const threadId = `thread:cancel:${replyTarget.pullRequest}`;
    const messageId = `m:${replyTarget.pullRequest}`;
    await deliverToThread(client(), ship.kit.taskQueue, {
      threadId,
      input: { threadId, replyTarget },
      message: { messageId, text: `agent:explore model:${model} wait a long time`, requester: { id: 'tester', surface: 'cli' } },
      summary: 'cancel test',
    });
    const outcome = await awaitOutcome(client(), threadId, messageId, { intervalMs: 200, timeoutMs: 30_000 });
    return { threadId, runId: outcome!.runId! };
  }

  it('a run: the command is killed, the record says stopped, the thread answers', async () => {
    const talk = await conversation('run');
    const { runId } = await startThread(sleeper('run', 3191), talk.target);
    await waitFor(async () => (await pids('sleep 3191')).length > 0);
    await waitUntil(
      () => currentDetails(runId),
      (details) => details.includes('**Phase:** tools') && details.includes('last tool'),
    );
    const handle = client().workflow.getHandle(runId);
    await handle.cancel();
    const record = (await handle.result()) as RunRecord;
    expect(record).toMatchObject({ outcome: 'stopped', endedBy: 'stopped by a cancellation request' });
    expect(await pids('sleep 3191')).toEqual([]);
    expect(await attributes(handle)).toEqual({ status: 'COMPLETED', phase: 'finished', outcome: 'stopped' });
    // The thread goes on: the run's answer is posted, and its final card says how it ended.
    await waitUntil(
      async () => talk.comments(),
      (bodies) => bodies.some((body) => body.includes('A long command.')),
    );
    expect(talk.comments().join('\n')).toMatch(/🛑 Stopped/);
  });

  it('a thread: its run is stopped and answered, its workspace released, and it ends', async () => {
    const talk = await conversation('thread');
    const { threadId, runId } = await startThread(sleeper('thread', 3192), talk.target);
    await waitFor(async () => (await pids('sleep 3192')).length > 0);
    expect(existsSync(workspaceOf(threadId))).toBe(true);
    const handle = client().workflow.getHandle(threadId);
    await handle.cancel();
    await handle.result();
    expect(((await client().workflow.getHandle(runId).result()) as RunRecord).outcome).toBe('stopped');
    expect(await pids('sleep 3192')).toEqual([]);
    expect(await attributes(handle)).toEqual({ status: 'COMPLETED', phase: 'finished', outcome: 'stopped' });
    expect(existsSync(workspaceOf(threadId))).toBe(false);
    expect(talk.comments().some((body) => body.includes('A long command.'))).toBe(true);
    expect(talk.comments().some((body) => body.startsWith('This thread was cancelled.'))).toBe(true);
  });

  it('a unit: its coding run is stopped, it settles stopped with its report, its workspace released', async () => {
    const talk = await conversation('unit');
    const unitId = 'unit:acme/app:cancel-me';
    const handle = await ship.start({ unitId, request: 'Add a feature', model: sleeper('unit', 3193), replyTarget: talk.target });
    await waitFor(async () => (await pids('sleep 3193')).length > 0);
    const details = await currentDetails(unitId);
    expect(details).toContain('**Phase:** coding');
    expect(details).toContain('**Round:** 0 of');
    expect(details).toContain(`waiting for run ${unitId}/coding-1-1`);
    expect(existsSync(workspaceOf(unitId))).toBe(true);
    await handle.cancel();
    const record: UnitRecord = await handle.result();
    expect(record).toMatchObject({ outcome: 'stopped', endedBy: 'stopped by a cancellation request' });
    expect(await pids('sleep 3193')).toEqual([]);
    expect(await attributes(handle)).toEqual({ status: 'COMPLETED', phase: 'settle', outcome: 'stopped' });
    expect(existsSync(workspaceOf(unitId))).toBe(false);
    expect(talk.comments().some((body) => body.startsWith(`Ship unit ${unitId} stopped: stopped by a cancellation request.`))).toBe(true);
  });

  it('a plan: its running unit is stopped, the plan settles stopped and reports', async () => {
    const talk = await conversation('plan');
    const planId = `plan:${REPO}:cancel`;
    const handle = await client().workflow.start(planWorkflowType, {
      workflowId: planId,
      taskQueue: ship.kit.taskQueue,
      args: [
        {
          planId,
          repo: REPO,
          replyTarget: talk.target,
          requester: { id: 'tester', surface: 'cli' },
          model: sleeper('plan', 3194),
          units: [{ key: 'one', request: 'Add one' }],
        },
      ],
    });
    await waitFor(async () => (await pids('sleep 3194')).length > 0);
    expect(await currentDetails(planId)).toContain('one running');
    await handle.cancel();
    const record = await handle.result();
    expect(record.outcome).toBe('stopped');
    expect(record.units[0]).toMatchObject({ status: 'settled', outcome: 'stopped' });
    expect(await pids('sleep 3194')).toEqual([]);
    expect(await attributes(handle)).toEqual({ status: 'COMPLETED', phase: 'settle', outcome: 'stopped' });
    const unit = client().workflow.getHandle<typeof shipUnitWorkflowType>(`unit:${REPO}:cancel-one`);
    expect((await unit.result()).outcome).toBe('stopped');
    expect(existsSync(workspaceOf(`unit:${REPO}:cancel-one`))).toBe(false);
    expect(talk.comments().some((body) => body.startsWith(`Plan ${planId} stopped.`))).toBe(true);
  });

  it('a unit whose phase fails non-retryably settles failed with the reason (no raw workflow failure)', async () => {
    const talk = await conversation('failing');
    const unitId = 'unit:acme/app#424242';
    const handle = await ship.start({ unitId, pullRequest: 424242, replyTarget: talk.target });
    const record: UnitRecord = await handle.result();
    expect(record.outcome).toBe('failed');
    expect(record.endedBy).toMatch(/not found/);
    expect(record.report).toContain(record.endedBy);
    expect(await attributes(handle)).toEqual({ status: 'COMPLETED', phase: 'settle', outcome: 'failed' });
    expect(talk.comments().some((body) => body.startsWith(`Ship unit ${unitId} failed: `))).toBe(true);
  });
});

async function pids(pattern: string): Promise<string[]> {
  try {
    const { stdout } = await run('pgrep', ['-f', pattern]);
    return stdout.trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
}
