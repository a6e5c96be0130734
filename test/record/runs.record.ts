/**
 * Records histories of `agentRunWorkflow` and `threadWorkflow` (run with `npm run
 * record-histories`, see docs/versioning.md): real runs of scripted models in the real sandbox.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { sendMessage } from '../../cli/commands/ask';
import { runStatusQuery, steerSignal, steerUpdate, stopSignal, threadStateQuery } from '../../workflows/contracts';
import { runsOf, saveHistory } from '../helpers/history';
import { startRunKit, type RunKit } from '../helpers/run-kit';
import { KIT_SCRIPTS } from '../helpers/scripts';
import { timeSkippingEnvironment } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';
import { shortHistoryEnvironment } from './servers';

jest.setTimeout(180_000);

describe('runs and threads', () => {
  let kit: RunKit;
  beforeAll(async () => {
    kit = await startRunKit('record-runs');
  });
  afterAll(async () => kit.close());
  const status = (runId: string) => kit.env.client.workflow.getHandle(runId).query(runStatusQuery);

  test('a completed run with tools; a thread with two runs and a refusal between them', async () => {
    const files = kit.script('files', [
      {
        text: 'Writing a note.',
        toolCalls: [
          { name: 'write_file', input: { path: 'notes/hello.txt', content: 'hello\n' } },
          { name: 'bash', input: { command: 'cat notes/hello.txt' } },
        ],
      },
      { text: 'The file says: {{lastToolResult:bash}}' },
    ]);
    const { runId, threadId } = await kit.start('write a note', { agent: 'coding', model: files });
    await kit.result(runId);
    const refused = await sendMessage(kit.env.client, kit.taskQueue, 'agent:nobody hello', { thread: threadId, requester: 'tester' });
    expect(refused.outcome.kind).toBe('refused');
    const again = kit.script('again', [{ text: 'Still here: {{lastUser}}' }]);
    const second = await kit.start('and again', { thread: threadId, model: again });
    await kit.result(second.runId);
    await waitUntil(
      () => kit.env.client.workflow.getHandle(threadId).query(threadStateQuery),
      (state) => state.currentRunId === undefined && state.outcomes.length === 3,
    );
    await saveHistory(kit.env.client, runId, 'run/completed-with-tools');
    // Sent by update-with-start (the CLI's path); thread/two-runs-and-a-refusal.json keeps the signal-only shape.
    await saveHistory(kit.env.client, threadId, 'thread/two-runs-by-update');
  });

  test('a run steered by signal and by update', async () => {
    const model = kit.script('steer', [
      { text: 'Working.', toolCalls: [{ name: 'bash', input: { command: 'sleep 2 && echo slept' } }] },
      { text: 'Steered: {{lastUser}}' },
    ]);
    const { runId } = await kit.start('use the api', { agent: 'coding', model });
    await waitUntil(
      () => status(runId),
      (now) => now.phase === 'tools',
    );
    const handle = kit.env.client.workflow.getHandle(runId);
    await handle.executeUpdate(steerUpdate, { args: [{ text: 'use the v2 API', by: 'tester' }] });
    await handle.signal(steerSignal, { text: 'and log it' });
    await kit.result(runId);
    await saveHistory(kit.env.client, runId, 'run/steered');
  });

  test('a run stopped mid-command through its thread', async () => {
    const model = kit.script('stop', [
      { text: 'Long job.', toolCalls: [{ name: 'bash', input: { command: 'sleep 3273' } }] },
      { text: 'never' },
    ]);
    const { runId, threadId } = await kit.start('wait a long time', { agent: 'coding', model });
    await waitUntil(
      () => status(runId),
      (now) => now.phase === 'tools',
    );
    await kit.env.client.workflow.getHandle(threadId).signal(stopSignal, { reason: 'enough', by: 'tester' });
    expect((await kit.result(runId)).outcome).toBe('stopped');
    await waitUntil(
      () => kit.env.client.workflow.getHandle(threadId).query(threadStateQuery),
      (state) => state.currentRunId === undefined,
    );
    await saveHistory(kit.env.client, runId, 'run/stopped');
    await saveHistory(kit.env.client, threadId, 'thread/stop-passed-on');
  });

  // A client's cancel (`temporal workflow cancel`, the Web UI) is a stop (workflows/cancel-as-stop.ts).
  test('a run cancelled by a client mid-command', async () => {
    const model = kit.script('cancel', [
      { text: 'Long job.', toolCalls: [{ name: 'bash', input: { command: 'sleep 3274' } }] },
      { text: 'never' },
    ]);
    const { runId } = await kit.start('wait a long time', { agent: 'coding', model });
    await waitUntil(
      () => status(runId),
      (now) => now.phase === 'tools',
    );
    const handle = kit.env.client.workflow.getHandle(runId);
    await handle.cancel();
    expect((await kit.result(runId)).outcome).toBe('stopped');
    await saveHistory(kit.env.client, runId, 'run/cancelled');
  });

  test('a thread cancelled by a client while its run works', async () => {
    const model = kit.script('cancel-thread', [
      { text: 'Long job.', toolCalls: [{ name: 'bash', input: { command: 'sleep 3275' } }] },
      { text: 'never' },
    ]);
    const { runId, threadId } = await kit.start('wait a long time', { agent: 'coding', model });
    await waitUntil(
      () => status(runId),
      (now) => now.phase === 'tools',
    );
    const thread = kit.env.client.workflow.getHandle(threadId);
    await thread.cancel();
    await thread.result();
    expect((await kit.result(runId)).outcome).toBe('stopped');
    await saveHistory(kit.env.client, threadId, 'thread/cancelled');
  });

  test('a run whose model fails for good', async () => {
    const { runId } = await kit.start('say something', { agent: 'general', model: `scripted:${KIT_SCRIPTS}/missing.yaml` });
    expect((await kit.result(runId)).outcome).toBe('failed');
    await saveHistory(kit.env.client, runId, 'run/failed');
  });

  test('a run with a sync and a background task child', async () => {
    const child = kit.script('child', [
      { text: 'Child working.', toolCalls: [{ name: 'bash', input: { command: 'echo child-done' } }] },
      { text: 'Child finished: {{lastToolResult:bash}}' },
    ]);
    const model = kit.script('parent', [
      {
        text: 'Delegating.',
        toolCalls: [
          { name: 'task', input: { agent_type: 'worker', name: 'now', prompt: 'do it now', model: child, mode: 'sync' } },
          { name: 'task', input: { agent_type: 'worker', name: 'later', prompt: 'do it later', model: child, mode: 'background' } },
        ],
      },
      { text: 'Waiting for the background part.' },
      { text: 'All reported: {{lastUser}}' },
    ]);
    const { runId } = await kit.start('split the work', { agent: 'coding', model });
    expect((await kit.result(runId)).children).toHaveLength(2);
    await saveHistory(kit.env.client, runId, 'run/task-children');
    await saveHistory(kit.env.client, `${runId}/task-1-now`, 'run/task-child');
  });

  test('a run waiting for a detached job on workflow timers', async () => {
    const model = kit.script('job', [
      {
        text: 'Starting a job.',
        toolCalls: [{ name: 'bash', input: { command: "setsid -f sh -c 'sleep 2; echo 0 > /tmp/job.exit' </dev/null >/dev/null 2>&1" } }],
      },
      { text: 'Waiting.', toolCalls: [{ name: 'wait_for_job', input: { exitFile: '/tmp/job.exit', pollSeconds: 10 } }] },
      { text: 'Job said: {{lastToolResult:wait_for_job}}' },
    ]);
    const { runId } = await kit.start('run a job', { agent: 'explore', model });
    expect((await kit.result(runId)).jobWaits.polls).toBeGreaterThanOrEqual(2);
    await saveHistory(kit.env.client, runId, 'run/job-wait-timers');
  });
});

describe('a worker with a host queue, as deployed', () => {
  let kit: RunKit;
  beforeAll(async () => {
    kit = await startRunKit('record-host', { hostQueue: true });
  });
  afterAll(async () => kit.close());

  test('a thread cancelled while its run works releases its workspace on the host queue', async () => {
    const model = kit.script('cancel-host', [
      { text: 'Long job.', toolCalls: [{ name: 'bash', input: { command: 'sleep 3276' } }] },
      { text: 'never' },
    ]);
    const { runId, threadId } = await kit.start('wait a long time', { agent: 'coding', model });
    await waitUntil(
      () => kit.env.client.workflow.getHandle(runId).query(runStatusQuery),
      (now) => now.phase === 'tools',
    );
    const thread = kit.env.client.workflow.getHandle(threadId);
    await thread.cancel();
    await thread.result();
    expect((await kit.result(runId)).workspaceHost).toBe(kit.hostTaskQueue);
    await saveHistory(kit.env.client, threadId, 'thread/cancelled-on-host');
    await saveHistory(kit.env.client, runId, 'run/stopped-on-host');
  });
});

describe('runs and threads that continue-as-new', () => {
  let short: Awaited<ReturnType<typeof shortHistoryEnvironment>>;
  let kit: RunKit;
  beforeAll(async () => {
    short = await shortHistoryEnvironment();
    kit = await startRunKit('record-short', { env: short.env });
  });
  afterAll(async () => {
    await kit.close();
    await short.close();
  });

  test('a run that continues-as-new between tool rounds, and its thread', async () => {
    const model = kit.script('rounds', [
      { text: 'One.', toolCalls: [{ name: 'bash', input: { command: 'echo one' } }] },
      { text: 'Two.', toolCalls: [{ name: 'bash', input: { command: 'echo two' } }] },
      { text: 'Done after {{turn}} turns.' },
    ]);
    const { runId, threadId } = await kit.start('count', { agent: 'coding', model });
    await kit.result(runId);
    const runs = await runsOf(kit.env.client, runId, 2);
    await saveHistory(kit.env.client, runId, 'run/continued-as-new-first', runs[0]);
    await saveHistory(kit.env.client, runId, 'run/continued-as-new-last', runs[runs.length - 1]);
    // The thread continues-as-new between runs; the second message reaches the new run.
    const again = kit.script('again', [{ text: 'Again.' }]);
    const second = await kit.start('once more', { thread: threadId, model: again });
    await kit.result(second.runId);
    const threads = await runsOf(kit.env.client, threadId, 2);
    await saveHistory(kit.env.client, threadId, 'thread/continued-as-new-first', threads[0]);
    await saveHistory(kit.env.client, threadId, 'thread/continued-as-new-next', threads[1]);
  });
});

/** A custom agent with a two-turn guard, so the guard and its summary turn come quickly. */
const BRIEF_AGENT = `displayName: Brief
description: A short investigation with a two-turn guard.
toolset: explore
machine: repo-cold
identity: read
budgetMinutes: 10
turnGuard: 2
tokenCap: 2000
prompt: Investigate briefly and answer.
`;

describe('run bounds on the time-skipping server', () => {
  let env: TestWorkflowEnvironment;
  let kit: RunKit;
  beforeAll(async () => {
    env = await timeSkippingEnvironment();
    const agentsDir = mkdtempSync(join(tmpdir(), 'switchboard-agents-'));
    writeFileSync(join(agentsDir, 'brief.agent.yaml'), BRIEF_AGENT);
    kit = await startRunKit('record-bounds', { env, customAgentsDir: agentsDir });
  });
  afterAll(async () => {
    await kit.close();
    await env.teardown();
  });

  // run/budget-ended.json and run/turn-guard.json were recorded before the closing-summary patch
  // (no summary at the budget; the guard's summary unmarked) and are kept as they are: they prove
  // that the patch's old branch still replays. These scenarios record the shapes with the patch.
  test('a run that ends at its budget while polling a job that never ends, with a closing summary', async () => {
    const model = kit.script('budget', [
      { text: 'Starting the job.', toolCalls: [{ name: 'bash', input: { command: 'echo started' } }] },
      { text: 'Waiting for the job.', toolCalls: [{ name: 'wait_for_job', input: { exitFile: '/tmp/never.exit', pollSeconds: 900 } }] },
      { text: 'Summary: the job never finished.' },
    ]);
    const { runId } = await kit.start('budget:30 wait for the long job', { agent: 'explore', model });
    expect(await kit.result(runId)).toMatchObject({ outcome: 'budget', summary: 'Summary: the job never finished.' });
    await saveHistory(kit.env.client, runId, 'run/budget-summarised');
  });

  test('a run that ends at its turn guard with a closing summary', async () => {
    const model = kit.script('guard', [
      { text: 'One.', toolCalls: [{ name: 'bash', input: { command: 'echo one' } }] },
      { text: 'Two.', toolCalls: [{ name: 'bash', input: { command: 'echo two' } }] },
      { text: 'Summary.' },
    ]);
    const { runId } = await kit.start('look into it', { agent: 'brief', model });
    expect(await kit.result(runId)).toMatchObject({ outcome: 'turns', summary: 'Summary.' });
    await saveHistory(kit.env.client, runId, 'run/turn-guard-summarised');
  });

  test('a run that ends at its token cap with a closing summary', async () => {
    const model = kit.script('tokens', [
      { text: 'A very long answer that was cut', usage: { inputTokens: 900, outputTokens: 2000 } },
      { text: 'Summary: half explained.' },
    ]);
    const { runId } = await kit.start('explain everything', { agent: 'brief', model });
    expect(await kit.result(runId)).toMatchObject({ outcome: 'tokens', summary: 'Summary: half explained.' });
    await saveHistory(kit.env.client, runId, 'run/tokens-summarised');
  });
});

describe('spend caps', () => {
  let kit: RunKit;
  beforeAll(async () => {
    kit = await startRunKit('record-spend', {
      prices: { 'scripted:kit/*': { input: 3, output: 15 } },
      spend: { people: { ada: { dailyUsd: 0.01, runUsd: 0.01 } }, channels: {}, repos: {}, agents: {} },
    });
  });
  afterAll(async () => kit.close());

  test('a thread whose spend caps bound a run (closing summary) and refuse the next start', async () => {
    const usage = { inputTokens: 1_000, outputTokens: 200 };
    const model = kit.script('capped', [
      { text: 'One.', toolCalls: [{ name: 'bash', input: { command: 'echo one' } }], usage },
      { text: 'Two.', toolCalls: [{ name: 'bash', input: { command: 'echo two' } }], usage },
      { text: 'Summary: one and two done.', usage },
    ]);
    const { runId, threadId } = await kit.start('count to three', { agent: 'coding', model, requester: 'ada' });
    expect(await kit.result(runId)).toMatchObject({ outcome: 'spend', summary: 'Summary: one and two done.' });
    // The refusal sums what visibility lists: wait until it lists the run.
    await waitUntil(async () => {
      for await (const _ of kit.env.client.workflow.list({ query: `WorkflowId = "${runId}" AND ExecutionStatus = "Completed"` }))
        return true;
      return false;
    }, Boolean);
    const refused = await sendMessage(kit.env.client, kit.taskQueue, 'and four', { thread: threadId, requester: 'ada', model });
    expect(refused.outcome).toMatchObject({ kind: 'refused', code: 'spend_cap' });
    await saveHistory(kit.env.client, runId, 'run/spend-capped');
    await saveHistory(kit.env.client, threadId, 'thread/spend-refused');
  });
});
