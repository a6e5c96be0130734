/**
 * Records histories that take issue 32's new `patched()` branches (run alone with
 * `npx jest --config jest.record.config.js test/record/issue-32.record.ts`, see docs/versioning.md):
 * a unit reset while its coding run worked, which follows that run instead of starting a round
 * beside it; a run that drops a steer past its length bound; a thread that refuses, in the
 * conversation, a reply too long to steer its run with. None overwrites an older history.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { resolveTemporalBinary } from '../../infra/temporal-binaries';
import { sendToThread } from '../../infra/thread-client';
import {
  MAX_STEER_CHARS,
  runStatusQuery,
  shipUnitWorkflowType,
  steerSignal,
  stopSignal,
  threadStateQuery,
  unitStateQuery,
  type UnitRecord,
} from '../../workflows/contracts';
import { saveHistory } from '../helpers/history';
import { REPO, startShipKit, type ShipKit } from '../helpers/ship-kit';
import { testTemporalAddress } from '../helpers/temporal';
import { waitUntil } from '../helpers/wait';

jest.setTimeout(240_000);
const exec = promisify(execFile);

describe('issue 32 patches: a reset unit follows its running child, steers past their bound', () => {
  let ship: ShipKit;
  const client = () => ship.kit.client;
  beforeAll(async () => {
    ship = await startShipKit('record-issue-32', { ship: { checksPollSeconds: 2 } });
  });
  afterAll(async () => ship?.close());

  // Patch: unit-follows-its-running-child (workflows/unit/running-child.ts).
  test('issue-32: a unit reset while its coding run works follows that run', async () => {
    const gate = `go-${randomUUID().slice(0, 6)}`;
    const model = ship.kit.script('issue-32-mid-round', [
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Good.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
          },
          {
            text: 'Waiting, then greeting.',
            toolCalls: [
              {
                name: 'bash',
                input: {
                  command: `until git ls-remote origin "refs/heads/${gate}" | grep -q ${gate}; do sleep 0.5; done; echo "Hello." > hello.txt`,
                  timeoutMs: 600_000,
                },
              },
              { name: 'submit_description', input: { title: 'Add hello.txt', body: 'Adds hello.txt.' } },
            ],
          },
        ],
      },
      { text: 'Done.' },
    ]);
    const unitId = `unit:${REPO}:record-mid-round`;
    await client().workflow.start(shipUnitWorkflowType, {
      workflowId: unitId,
      taskQueue: ship.kit.taskQueue,
      args: [
        { unitId, repo: REPO, request: 'Add hello.txt', replyTarget: { kind: 'cli' }, requester: { id: 'tester', surface: 'cli' }, model },
      ],
    });
    const coding = `${unitId}/coding-1-1`;
    await waitUntil(
      () => client().workflow.getHandle(coding).query(runStatusQuery),
      (status) => status.phase === 'tools',
      120_000,
    );
    const events = (await client().workflow.getHandle(unitId).fetchHistory()).events ?? [];
    const initiated = events.find((event) => event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId === coding)!;
    const before = (await client().workflow.getHandle(unitId).describe()).runId;
    await exec(resolveTemporalBinary('cli').path, [
      'workflow',
      'reset',
      '--address',
      testTemporalAddress(),
      '--workflow-id',
      unitId,
      '--event-id',
      String(initiated.startChildWorkflowExecutionInitiatedEventAttributes!.workflowTaskCompletedEventId),
      '--reason',
      'recording',
      '--yes',
    ]);
    await waitUntil(
      () => client().workflow.getHandle(unitId).describe(),
      (description) => description.runId !== before,
    );
    ship.github.commit(REPO, gate, { 'gate.txt': 'go\n' });
    const state = await waitUntil(
      () => client().workflow.getHandle(unitId).query(unitStateQuery),
      (current) => current.phase === 'idle',
      150_000,
    );
    expect(state.round).toBe(1);
    await client().workflow.getHandle(unitId).signal(stopSignal, { reason: 'recorded', by: 'tester' });
    expect(((await client().workflow.getHandle(unitId).result()) as UnitRecord).outcome).toBe('stopped');
    await saveHistory(client(), unitId, 'unit/reset-follows-running-child');
  });

  // Patches: input-length-bound (the run drops the signal), thread-steer-length-bound (the thread refuses the reply).
  test('issue-32: steers past their bound, dropped by a run and refused by its thread', async () => {
    const slow = ship.kit.script('issue-32-slow', [{ text: 'Thinking for a long time.', delayMs: 600_000 }]);
    const { threadId, runId } = await ship.kit.start(`agent:general model:${slow} think`);
    await waitUntil(
      () => client().workflow.getHandle(runId).query(runStatusQuery),
      (status) => status.phase === 'thinking',
    );
    const long = 'x'.repeat(MAX_STEER_CHARS + 1);
    await client().workflow.getHandle(runId).signal(steerSignal, { text: long, by: 'tester' });
    const reply = await sendToThread(
      client(),
      ship.kit.taskQueue,
      {
        threadId,
        input: { threadId, replyTarget: { kind: 'cli' } },
        message: { messageId: `long:${randomUUID()}`, text: long, requester: { id: 'tester', surface: 'cli' }, addressedToRun: true },
        summary: 'issue 32 recorder',
      },
      { existing: true },
    );
    expect(reply).toMatchObject({ kind: 'refused', code: 'steer_too_long' });
    await client().workflow.getHandle(runId).signal(stopSignal, { reason: 'recorded', by: 'tester' });
    expect((await ship.kit.result(runId)).outcome).toBe('stopped');
    await waitUntil(
      () => client().workflow.getHandle(threadId).query(threadStateQuery),
      (state) => state.currentRunId === undefined,
    );
    await saveHistory(client(), runId, 'run/steer-past-bound-dropped');
    await saveHistory(client(), threadId, 'thread/steer-past-bound-refused');
  });
});
