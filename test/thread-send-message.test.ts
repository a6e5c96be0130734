import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { resolveTemporalBinary } from '../infra/temporal-binaries';
import { awaitOutcome, sendToThread, type ThreadDelivery } from '../infra/thread-client';
import { runStatusQuery, stopSignal, threadStateQuery, type ThreadMessage } from '../workflows/contracts';
import { startRunKit, type RunKit } from './helpers/run-kit';
import { testTemporalAddress } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(120_000);
const run = promisify(execFile);

/**
 * The `sendMessage` update: a message goes to its thread by update-with-start and the call
 * answers the thread's decision, with no polling (what the CLI, the HTTP API and MCP use).
 */
describe('sending a message by update-with-start', () => {
  let kit: RunKit;
  beforeAll(async () => {
    kit = await startRunKit('send-message');
  });
  afterAll(async () => kit.close());

  const delivery = (threadId: string, text: string, messageId = `test:${randomUUID()}`): ThreadDelivery => ({
    threadId,
    input: { threadId, replyTarget: { kind: 'cli' } },
    message: { messageId, text, requester: { id: 'tester', surface: 'cli' } } satisfies ThreadMessage,
    summary: 'send-message test',
  });

  it('starts the thread and answers its decision; the same message id again answers the same decision and starts nothing', async () => {
    const model = kit.script('hello', [{ text: 'Hello.' }]);
    const threadId = `thread:cli:${randomUUID()}`;
    const sent = delivery(threadId, `agent:general model:${model} hello`);
    const first = await sendToThread(kit.client, kit.taskQueue, sent);
    expect(first).toEqual({ messageId: sent.message.messageId, kind: 'run', runId: `run:${threadId}:1`, agent: 'general' });
    await kit.result(first!.runId!);
    expect(await sendToThread(kit.client, kit.taskQueue, sent)).toEqual(first);
    const state = await kit.client.workflow.getHandle(threadId).query(threadStateQuery);
    expect(state.runCount).toBe(1);
  });

  it('a follow-up queued behind a running run is not decided within the wait; it is once the run ends', async () => {
    const long = kit.script('long', [
      { text: 'A long command.', toolCalls: [{ name: 'bash', input: { command: 'sleep 120; echo never' } }] },
      { text: 'never' },
    ]);
    const threadId = `thread:cli:${randomUUID()}`;
    const first = await sendToThread(kit.client, kit.taskQueue, delivery(threadId, `agent:coding model:${long} wait`));
    expect(first?.kind).toBe('run');
    const followUp = delivery(threadId, `model:${kit.script('after', [{ text: 'After.' }])} and then`);
    expect(await sendToThread(kit.client, kit.taskQueue, followUp, { timeoutMs: 500, existing: true })).toBeUndefined();
    await kit.client.workflow.getHandle(threadId).signal(stopSignal, { reason: 'test over', by: 'tester' });
    expect((await kit.result(first!.runId!)).outcome).toBe('stopped');
    const decided = await awaitOutcome(kit.client, threadId, followUp.message.messageId, { timeoutMs: 60_000 });
    expect(decided).toMatchObject({ kind: 'run', runId: `run:${threadId}:2` });
    // The update left waiting by the timed-out call finished with the decision too.
    expect(await sendToThread(kit.client, kit.taskQueue, followUp, { existing: true })).toEqual(decided);
  });

  it('a run terminated from Temporal is answered as terminated, not as failed', async () => {
    const long = kit.script('terminated', [
      { text: 'Waiting.', toolCalls: [{ name: 'bash', input: { command: 'sleep 300' } }] },
      { text: 'never' },
    ]);
    const threadId = `thread:cli:${randomUUID()}`;
    // A terminated run sends no word; the thread learns of it from its run watch (issue 37), looking often here.
    const sent = delivery(threadId, `agent:coding model:${long} wait`);
    const first = await sendToThread(kit.client, kit.taskQueue, {
      ...sent,
      input: { ...sent.input, runWatch: { firstMs: 500, everyMs: 500 } },
    });
    await waitUntil(
      () => kit.client.workflow.getHandle(first!.runId!).query(runStatusQuery),
      (status) => status.phase === 'tools',
    );
    await kit.client.workflow.getHandle(first!.runId!).terminate('by hand');
    await waitUntil(
      () => kit.client.workflow.getHandle(threadId).query(threadStateQuery),
      (state) => state.currentRunId === undefined && state.saved === 1,
    );
    // The answer the thread delivered (a CLI thread's reply goes to the worker's log; its input is in the history).
    const history = await kit.client.workflow.getHandle(threadId).fetchHistory();
    const replies = (history.events ?? [])
      .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverReply')
      .map(
        (event) =>
          JSON.parse(Buffer.from(event.activityTaskScheduledEventAttributes!.input!.payloads![0].data!).toString()) as { text: string },
      );
    expect(replies.map((reply) => reply.text)).toEqual([
      'The run was terminated (from Temporal, by an operator) before it produced an answer.',
    ]);
  });

  it('works from the temporal CLI by hand, with the message as JSON', async () => {
    const model = kit.script('by-hand', [{ text: 'By hand.' }]);
    const threadId = `thread:cli:${randomUUID()}`;
    // The thread must exist for `workflow update execute`; the first message starts it.
    await sendToThread(kit.client, kit.taskQueue, delivery(threadId, `agent:general model:${model} first`));
    await waitUntil(
      () => kit.client.workflow.getHandle(threadId).query(threadStateQuery),
      (state) => state.currentRunId === undefined && state.runCount === 1,
    );
    const message = { messageId: 'by-hand-1', text: 'again, by hand', requester: { id: 'operator', surface: 'cli' } };
    const { stdout } = await run(resolveTemporalBinary('cli').path, [
      'workflow',
      'update',
      'execute',
      '--address',
      testTemporalAddress(),
      '--workflow-id',
      threadId,
      '--name',
      'sendMessage',
      '--input',
      JSON.stringify(message),
      '--output',
      'json',
    ]);
    expect(stdout).toContain(`run:${threadId}:2`);
    await kit.result(`run:${threadId}:2`);
  });
});
