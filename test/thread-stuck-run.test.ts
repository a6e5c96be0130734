import { randomUUID } from 'node:crypto';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { createAgentSetupActivities } from '../activities/agents/agent-setup';
import { createRunProgressActivities } from '../activities/runs/run-progress';
import { createRunStartActivities } from '../activities/runs/run-start';
import { workerRunStarts } from '../infra/worker';
import type { ReplyInput } from '../workflows/contracts/status';
import { defaultAgentsConfig } from '../agents/config';
import { awaitOutcome } from '../infra/thread-client';
import { messageSignal, threadStateQuery, threadWorkflowType, type ThreadMessage } from '../workflows/contracts';
import { sharedEnvironment, uniqueTaskQueue } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(90_000);

/**
 * A thread whose run's workflow task fails every time (a bug, an oversized payload) lets the
 * run go, tells the person, and takes new messages again, instead of waiting forever.
 */
describe('a thread with a stuck run', () => {
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  const replies: ReplyInput[] = [];
  const taskQueue = uniqueTaskQueue('thread-stuck');

  beforeAll(async () => {
    env = await sharedEnvironment();
    const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('./fixtures/stuck/thread-workflows'), logger: quiet });
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { code },
      activities: {
        ...createAgentSetupActivities({ config: defaultAgentsConfig({}) }),
        ...createRunProgressActivities({ client: env.client }),
        ...createRunStartActivities(workerRunStarts(env.nativeConnection, 'default')),
        deliverReply: async (input: ReplyInput) => {
          replies.push(input);
          return { status: 'recorded' as const };
        },
      },
    });
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
  });

  it('lets the run go, says so, and starts the next message', async () => {
    const threadId = `thread:api:${randomUUID()}`;
    const message = (text: string): ThreadMessage => ({
      messageId: `api:${randomUUID()}`,
      text,
      requester: { id: 'tester', surface: 'http' },
    });
    const first = message('hello');
    await env.client.workflow.signalWithStart(threadWorkflowType, {
      workflowId: threadId,
      taskQueue,
      args: [{ threadId, replyTarget: { kind: 'api' }, runWatch: { firstMs: 300, everyMs: 300 } }],
      signal: messageSignal,
      signalArgs: [first],
    });
    const thread = env.client.workflow.getHandle(threadId);
    const firstRun = `run:${threadId}:1`;
    const notice = await waitUntil(
      async () => replies.find((reply) => reply.effectKey === `${firstRun}/answer`),
      (reply) => reply !== undefined,
    );
    expect(notice!.text).toContain(`${firstRun} is stuck`);
    expect(notice!.text).toContain('switchboard runs list --stuck');
    // The run itself stays for an operator: still open, its task still failing.
    expect((await env.client.workflow.getHandle(firstRun).describe()).status.name).toBe('RUNNING');

    const second = message('hello again');
    await thread.signal(messageSignal, second);
    const outcome = await awaitOutcome(env.client, threadId, second.messageId, { timeoutMs: 30_000, intervalMs: 100 });
    expect(outcome).toMatchObject({ kind: 'run', runId: `run:${threadId}:2` });
    expect((await thread.query(threadStateQuery)).currentRunId).toBe(`run:${threadId}:2`);

    for (const id of [firstRun, `run:${threadId}:2`, threadId]) await env.client.workflow.getHandle(id).terminate('test over');
  });
});

const quiet = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
