/**
 * Records histories of issue 37's new shape (run alone with `npx jest --config
 * jest.record.config.js test/record/issue-37.record.ts`, see docs/versioning.md): a thread that
 * starts its runs by a local activity with eager workflow start (`thread-starts-run-eagerly`) and
 * hears their end by `runEnded`, the run that tells it (`RunInput.reportEnd`), a run terminated
 * from Temporal that its thread's run watch finds, a thread cancelled while its run works, and a
 * thread reset to its first task that adopts the run it had started. None overwrites an older history.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { sendToThread } from '../../infra/thread-client';
import { resolveTemporalBinary } from '../../infra/temporal-binaries';
import { runStatusQuery, stopSignal, threadStateQuery } from '../../workflows/contracts';
import { runsOf, runsStartedBy, saveHistory } from '../helpers/history';
import { startRunKit, type RunKit } from '../helpers/run-kit';
import { testTemporalAddress } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

jest.setTimeout(180_000);
const exec = promisify(execFile);

describe('issue 37: runs started eagerly by their thread', () => {
  let kit: RunKit;
  beforeAll(async () => {
    kit = await startRunKit('record-eager');
  });
  afterAll(async () => kit?.close());
  const client = () => kit.env.client;
  const status = (runId: string) => client().workflow.getHandle(runId).query(runStatusQuery);
  const settled = (threadId: string, outcomes: number) =>
    waitUntil(
      () => client().workflow.getHandle(threadId).query(threadStateQuery),
      (state) => state.currentRunId === undefined && state.outcomes.length === outcomes,
    );
  const long = (name: string, seconds: number) =>
    kit.script(name, [{ text: 'Long job.', toolCalls: [{ name: 'bash', input: { command: `sleep ${seconds}` } }] }, { text: 'never' }]);

  // Patches: thread-starts-run-eagerly (both runs); the first run tells its end (reportEnd), the second is stopped through the thread.
  test('eager: a thread with a run answered and a run stopped through it', async () => {
    const files = kit.script('eager-files', [
      { text: 'Writing.', toolCalls: [{ name: 'write_file', input: { path: 'note.txt', content: 'hi\n' } }] },
      { text: 'Wrote note.txt.' },
    ]);
    const { runId, threadId } = await kit.start('write a note', { agent: 'coding', model: files });
    expect((await kit.result(runId)).finalText).toBe('Wrote note.txt.');
    await settled(threadId, 1);
    // A scripted turn is picked by the assistant messages so far: the saved exchange is the first.
    const later = kit.script('eager-long', [
      { text: 'No saved context reached this run.' },
      { text: 'Long job.', toolCalls: [{ name: 'bash', input: { command: 'sleep 3371' } }] },
      { text: 'never' },
    ]);
    const second = await kit.start('wait a long time', { thread: threadId, agent: 'coding', model: later });
    await waitUntil(
      () => status(second.runId),
      (now) => now.phase === 'tools',
    );
    await client().workflow.getHandle(threadId).signal(stopSignal, { reason: 'enough', by: 'tester' });
    expect((await kit.result(second.runId)).outcome).toBe('stopped');
    await settled(threadId, 2);
    expect((await runsStartedBy(client(), threadId)).map((run) => run.how)).toEqual(['eager', 'eager']);
    await saveHistory(client(), threadId, 'thread/eager-runs');
    await saveHistory(client(), runId, 'run/reports-end');
    await saveHistory(client(), second.runId, 'run/reports-end-stopped');
  });

  // Patches: thread-starts-run-eagerly; the run watch finds the run closed without a word and reads its end (runOutcome).
  test('eager: a run terminated from Temporal, found by its thread’s run watch', async () => {
    const threadId = `thread:cli:record-eager-${randomUUID()}`;
    const outcome = await sendToThread(client(), kit.taskQueue, {
      threadId,
      input: { threadId, replyTarget: { kind: 'cli' }, runWatch: { firstMs: 500, everyMs: 500 } },
      message: {
        messageId: `cli:${randomUUID()}`,
        text: `agent:coding model:${long('eager-terminated', 3372)} wait`,
        requester: { id: 'tester', surface: 'cli' },
      },
      summary: 'eager recorder',
    });
    await waitUntil(
      () => status(outcome!.runId!),
      (now) => now.phase === 'tools',
    );
    await client().workflow.getHandle(outcome!.runId!).terminate('an operator ends it');
    await settled(threadId, 1);
    await saveHistory(client(), threadId, 'thread/eager-run-terminated');
  });

  // Patches: thread-starts-run-eagerly; a cancelled thread stops its run by signal, hears its end, and ends.
  test('eager: a thread cancelled while its run works', async () => {
    const { runId, threadId } = await kit.start('wait a long time', { agent: 'coding', model: long('eager-cancel', 3373) });
    await waitUntil(
      () => status(runId),
      (now) => now.phase === 'tools',
    );
    const thread = client().workflow.getHandle(threadId);
    await thread.cancel();
    await thread.result();
    expect((await kit.result(runId)).outcome).toBe('stopped');
    await saveHistory(client(), threadId, 'thread/eager-cancelled');
  });

  // Patches: thread-starts-run-eagerly; the reset thread's start finds its own closed run and adopts its end (never runs it twice).
  test('eager: a thread reset to its first task adopts the run it had started', async () => {
    const model = kit.script('eager-reset', [{ text: 'Answered once.' }]);
    const { runId, threadId } = await kit.start('answer once', { agent: 'general', model });
    await kit.result(runId);
    await settled(threadId, 1);
    const before = (await client().workflow.getHandle(threadId).describe()).runId;
    await exec(resolveTemporalBinary('cli').path, [
      'workflow',
      'reset',
      '--address',
      testTemporalAddress(),
      '--workflow-id',
      threadId,
      '--type',
      'FirstWorkflowTask',
      '--reason',
      'recorder',
      '--yes',
    ]);
    const after = await waitUntil(
      () => client().workflow.getHandle(threadId).describe(),
      (description) => description.runId !== before,
    );
    await settled(threadId, 1);
    expect(await runsOf(client(), runId, 1)).toHaveLength(1);
    // Its start answered the run's end (adopted), not a fresh start: no first task came back eagerly.
    expect(await runsStartedBy(client(), threadId, after.runId)).toEqual([{ runId, how: 'local' }]);
    await saveHistory(client(), threadId, 'thread/eager-reset-adopted', after.runId);
  });
});
