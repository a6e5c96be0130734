import { randomUUID } from 'node:crypto';
import { runStatusQuery, shipUnitWorkflowType, stopSignal, unitStateQuery, type UnitRecord } from '../workflows/contracts';
import { REPO, startShipKit, type ShipKit } from './helpers/ship-kit';
import { waitUntil } from './helpers/wait';
import { failedTasks, resetTo, startedBy } from './helpers/workflow-reset';

jest.setTimeout(300_000);

/**
 * Issue 32 item 5: `temporal workflow reset` of a unit while its coding run works. The reset does
 * not stop that run, so the reset execution's child start finds it still running under the same
 * id ("already exists"); the unit must follow it and take its record as the round's, not count a
 * run that ended without a record and start the next round beside it on the same checkout.
 */
describe('a unit reset mid-coding-round', () => {
  let ship: ShipKit;
  beforeAll(async () => {
    ship = await startShipKit('reset-mid-round', { ship: { checksPollSeconds: 2 } });
  });
  afterAll(async () => ship?.close());

  it('takes its running coding run’s round instead of starting another beside it', async () => {
    const client = ship.kit.client;
    // The coding command waits until the test lets it finish (a branch appears on GitHub): the reset lands mid-round.
    const gate = `go-${randomUUID().slice(0, 6)}`;
    const model = ship.kit.script('reset-mid-round', [
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
    const unitId = `unit:${REPO}:mid-round-${randomUUID().slice(0, 6)}`;
    const pullRequestsBefore = ship.github.state.countWrites('pull_request.create', REPO);
    await client.workflow.start(shipUnitWorkflowType, {
      workflowId: unitId,
      taskQueue: ship.kit.taskQueue,
      args: [
        { unitId, repo: REPO, request: 'Add hello.txt', replyTarget: { kind: 'cli' }, requester: { id: 'tester', surface: 'cli' }, model },
      ],
    });
    const coding = `${unitId}/coding-1-1`;
    await waitUntil(
      () => client.workflow.getHandle(coding).query(runStatusQuery),
      (status) => status.phase === 'tools' && status.lastTool === 'bash',
      120_000,
    );
    // Reset to the task that started the coding run: the reset execution starts it again, and finds it running.
    await resetTo(client, unitId, await startedBy(client, unitId, coding));
    await waitUntil(
      async () => (await client.workflow.getHandle(unitId).fetchHistory()).events ?? [],
      (events) => events.some((event) => event.startChildWorkflowExecutionFailedEventAttributes?.workflowId === coding),
      120_000,
    );
    ship.github.commit(REPO, gate, { 'gate.txt': 'go\n' });
    const state = await waitUntil(
      () => client.workflow.getHandle(unitId).query(unitStateQuery),
      (current) => current.phase === 'idle',
      150_000,
    );
    // One coding round, its work kept: no second round was started beside the first.
    expect(state).toMatchObject({ round: 1, lastReview: { verdict: 'approve' } });
    await expect(client.workflow.getHandle(`${unitId}/coding-2-1`).describe()).rejects.toThrow();
    expect(await failedTasks(client, unitId)).toEqual([]);
    expect(ship.github.state.countWrites('pull_request.create', REPO)).toBe(pullRequestsBefore + 1);
    await client.workflow.getHandle(unitId).signal(stopSignal, { reason: 'reset test over', by: 'tester' });
    expect(((await client.workflow.getHandle(unitId).result()) as UnitRecord).outcome).toBe('stopped');
  });
});
