import { randomUUID } from 'node:crypto';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import { createRunStartActivities } from '../activities/runs/run-start';
import { workspaceFilesFor } from '../activities/sandbox';
import { workerRunStarts } from '../infra/worker';
import { sendToThread } from '../infra/thread-client';
import { decodeEvents } from '../infra/history/decode';
import { buildThreadSession } from '../server/session/model/thread-session';
import { runEndedSignal, runStatusQuery, threadStateQuery, type RunInput } from '../workflows/contracts';
import { Thread } from '../workflows/search-attributes';
import { runsStartedBy } from './helpers/history';
import { startRunKit, type RunKit } from './helpers/run-kit';
import { waitUntil } from './helpers/wait';

jest.setTimeout(180_000);

/**
 * Issue 37 item 1: a thread starts each run by a local activity with eager workflow start, not
 * as a child; the run tells its thread its end by `runEnded`, and the thread's run watch covers a
 * run that never says (terminated from Temporal). A run id is started once per life of its thread.
 */
describe('a thread starts its runs eagerly', () => {
  let kit: RunKit;
  beforeAll(async () => {
    kit = await startRunKit('eager-start');
  });
  afterAll(async () => kit?.close());

  const history = (workflowId: string) => kit.client.workflow.getHandle(workflowId).fetchHistory();
  const settled = (threadId: string, outcomes: number) =>
    waitUntil(
      () => kit.client.workflow.getHandle(threadId).query(threadStateQuery),
      (state) => state.currentRunId === undefined && state.outcomes.length === outcomes,
    );

  it('starts the run by its local activity (the first task back in the answer), finds it by `Thread`, and hears its end by signal', async () => {
    const model = kit.script('hello', [{ text: 'Hello.' }]);
    const { threadId, runId } = await kit.start('hello', { agent: 'general', model });
    expect((await kit.result(runId)).finalText).toBe('Hello.');
    await settled(threadId, 1);

    expect(await runsStartedBy(kit.client, threadId)).toEqual([{ runId, how: 'eager' }]);
    const run = await kit.client.workflow.getHandle(runId).describe();
    // No parent link: the thread and its runs are found by the `Thread` search attribute (and the run's details name the thread).
    expect(run.parentExecution).toBeUndefined();
    expect(run.typedSearchAttributes.get(Thread)).toBe(threadId);
    const found = await waitUntil(
      async () => {
        const ids: string[] = [];
        for await (const execution of kit.client.workflow.list({ query: `Thread = "${threadId}"` })) ids.push(execution.workflowId);
        return ids.sort();
      },
      (ids) => ids.length === 2,
    );
    expect(found).toEqual([runId, threadId].sort());
    // The end came by the run's signal, with its record; no child event anywhere in the thread's history.
    const events = (await history(threadId)).events ?? [];
    const ended = events.filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === runEndedSignal.name);
    expect(ended).toHaveLength(1);
    expect(events.some((event) => event.startChildWorkflowExecutionInitiatedEventAttributes)).toBe(false);
    // The session page's model reads the run and its end from the marker and the signal.
    const session = buildThreadSession(threadId, [{ runId: '', events: await decodeEvents(loadDataConverter(), events) }]);
    expect(session.runIds).toEqual([runId]);
    expect(session.items.find((item) => item.kind === 'run')).toMatchObject({
      child: { state: 'completed', record: { outcome: 'completed' } },
    });
  });

  it('answers a run terminated from Temporal (no word from it) once its run watch looks', async () => {
    const model = kit.script('long', [
      { text: 'Long job.', toolCalls: [{ name: 'bash', input: { command: 'sleep 3377' } }] },
      { text: 'never' },
    ]);
    const threadId = `thread:cli:${randomUUID()}`;
    const outcome = await sendToThread(kit.client, kit.taskQueue, {
      threadId,
      input: { threadId, replyTarget: { kind: 'cli' }, runWatch: { firstMs: 500, everyMs: 500 } },
      message: { messageId: `cli:${randomUUID()}`, text: `agent:coding model:${model} wait`, requester: { id: 'tester', surface: 'cli' } },
      summary: 'eager start test',
    });
    const runId = outcome!.runId!;
    await waitUntil(
      () => kit.client.workflow.getHandle(runId).query(runStatusQuery),
      (status) => status.phase === 'tools',
    );
    await kit.client.workflow.getHandle(runId).terminate('an operator ends it');
    await settled(threadId, 1);
    const events = (await history(threadId)).events ?? [];
    expect(events.some((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runOutcome')).toBe(true);
    const session = buildThreadSession(threadId, [{ runId: '', events: await decodeEvents(loadDataConverter(), events) }]);
    expect(session.items.find((item) => item.kind === 'run')).toMatchObject({ child: { workflowId: runId, state: 'terminated' } });
    // The next message is taken: the thread is not left waiting.
    // A scripted turn is picked by the assistant messages so far: the saved (terminated) exchange is the first.
    const hello = kit.script('after', [{ text: 'No saved context reached this run.' }, { text: 'Back.' }]);
    const next = await kit.start('hello again', { thread: threadId, agent: 'general', model: hello });
    expect((await kit.result(next.runId)).finalText).toBe('Back.');
  });

  it('starts a run id once: a retried start follows the running run, a closed one of the same thread is adopted, one of an earlier life replaced', async () => {
    const model = kit.script('slow', [
      { text: 'Working.', toolCalls: [{ name: 'bash', input: { command: 'while [ ! -f go ]; do sleep 0.1; done' } }] },
      { text: 'Done.' },
    ]);
    const { threadId, runId } = await kit.start('work', { agent: 'coding', model });
    await waitUntil(
      () => kit.client.workflow.getHandle(runId).query(runStatusQuery),
      (status) => status.phase === 'tools',
    );
    const started = (await history(runId)).events![0].workflowExecutionStartedEventAttributes!;
    const input = loadDataConverter().payloadConverter.fromPayload<RunInput>(started.input!.payloads![0]);
    const threadExecution = (await kit.client.workflow.getHandle(threadId).describe()).raw.workflowExecutionInfo?.firstRunId ?? '';
    expect(threadExecution).not.toBe('');
    const starts = createRunStartActivities(workerRunStarts(kit.env.nativeConnection, 'default'));
    const again = { runId, taskQueue: kit.taskQueue, input, threadExecution, staticSummary: 's', staticDetails: 'd' };
    const executions = async () => {
      const runs: string[] = [];
      for await (const execution of kit.client.workflow.list({ query: `WorkflowId = "${runId}"` })) runs.push(execution.runId);
      return runs;
    };

    // A retry of the start (its first answer lost) while the run works: the same run, not a second one.
    expect(await starts.startRun(again)).toEqual({ runId, eager: false });
    expect(await executions()).toHaveLength(1);

    const files = await workspaceFilesFor(kit.sandboxHost, { key: threadId, network: true });
    if (files instanceof Error) throw files;
    expect(await files.write('go', '')).toMatchObject({ ok: true });
    await settled(threadId, 1);
    // Closed, and started by this thread: adopted with its record, never run again.
    const adopted = await starts.startRun(again);
    expect(adopted).toMatchObject({ runId, ended: { runId, record: { outcome: 'completed', finalText: 'Done.' } } });
    expect(await executions()).toHaveLength(1);

    // Closed, and started in an earlier life of the thread (it was cancelled; a later message began it again at run 1): replaced.
    const replaced = await starts.startRun({ ...again, threadExecution: 'an-earlier-life' });
    expect(replaced).toMatchObject({ runId, eager: expect.any(Boolean) });
    expect(await waitUntil(executions, (runs) => runs.length === 2)).toHaveLength(2);
    await kit.client.workflow.getHandle(runId).terminate('test over');
  });
});
