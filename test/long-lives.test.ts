import { defaultPayloadConverter } from '@temporalio/common';
import { workspaceFilesFor } from '../activities/sandbox';
import {
  messageSignal,
  prEventSignal,
  runStatusQuery,
  steerUpdate,
  stopSignal,
  threadStateQuery,
  unitStateQuery,
  type RunInput,
  type UnitState,
} from '../workflows/contracts';
import { runsOf, runsStartedBy } from './helpers/history';
import { findingThenApprovalScript, REPO, startShipKit, type ShipKit } from './helpers/ship-kit';
import { waitUntil } from './helpers/wait';
import { shortHistoryEnvironment } from './record/servers';

jest.setTimeout(150_000);

/**
 * Long lives: a run, its thread and a ship unit driven through continue-as-new on a real dev
 * server that suggests it after a few events (the recorder's short-history server), showing
 * that what a new execution needs arrives with it: pending steers, background children and
 * the transcript of a run; the queued message, sticky agent and saved context of a thread; the
 * phase, round and posted reviews of a unit.
 */
describe('long lives through continue-as-new', () => {
  let short: Awaited<ReturnType<typeof shortHistoryEnvironment>>;
  let ship: ShipKit;
  beforeAll(async () => {
    short = await shortHistoryEnvironment();
    ship = await startShipKit('long-lives', { env: short.env });
  });
  afterAll(async () => {
    await ship?.close();
    await short?.close();
  });
  const client = () => ship.kit.env.client;

  it('a run keeps its pending steer, its background child and its transcript; its thread keeps a queued message and the context', async () => {
    const { kit } = ship;
    // The child (sharing the run's workspace) finishes only once the test says so, so the parent's second round collects it.
    const child = kit.script('child', [
      { text: 'Child waiting.', toolCalls: [{ name: 'bash', input: { command: 'while [ ! -f child-go ]; do sleep 0.1; done' } }] },
      { text: 'Child found 42.' },
    ]);
    // A scripted turn is chosen by the assistant messages so far: the saved exchange is one, so this run plays the second.
    const next = kit.script('next', [{ text: 'No saved context reached this run.' }, { text: 'Tests: {{lastUser}}' }]);
    const model = kit.script('parent', [
      {
        text: 'Delegating and looking.',
        toolCalls: [
          { name: 'task', input: { agent_type: 'worker', name: 'later', prompt: 'find the number', model: child, mode: 'background' } },
          { name: 'bash', input: { command: 'echo first-round' } },
        ],
      },
      {
        // The child is collected here, so nothing holds the run back from continuing-as-new after this round.
        text: 'Collecting the child and waiting for the go.',
        toolCalls: [
          { name: 'wait_for_job', input: { jobId: '{{runId}}/task-1-later' } },
          { name: 'bash', input: { command: 'while [ ! -f go ]; do sleep 0.1; done; echo second-round' } },
        ],
      },
      { text: 'After the restart: {{lastUser}} | child: {{lastToolResult:wait_for_job}} | shell: {{lastToolResult:bash}}' },
    ]);
    const { runId, threadId } = await kit.start('count things', { agent: 'coding', model });
    const run = client().workflow.getHandle(runId);
    // The second round's tools are running: a steer now stays pending until the next turn, which is after continue-as-new.
    await waitUntil(
      () => run.query(runStatusQuery),
      (status) => status.turns === 2 && status.phase !== 'thinking',
    );
    expect(await run.executeUpdate(steerUpdate, { args: [{ text: 'use the v2 API', by: 'ada' }] })).toEqual({ accepted: true, pending: 1 });
    // And a new request to the thread, queued behind the run.
    await client()
      .workflow.getHandle(threadId)
      .signal(messageSignal, {
        messageId: 'cli:queued-1',
        text: `model:${next} and now the tests`,
        requester: { id: 'tester', surface: 'cli' },
      });
    // The go-ahead is written where the run's commands look, inside its sandbox.
    const files = await workspaceFilesFor(kit.sandboxHost, { key: threadId, network: true });
    if (files instanceof Error) throw files;
    for (const name of ['child-go', 'go']) expect(await files.write(name, '')).toMatchObject({ ok: true });

    const record = await kit.result(runId);
    expect(await runsOf(client(), runId, 2)).not.toHaveLength(1);
    expect(record).toMatchObject({ outcome: 'completed', turns: 3 });
    expect(record.finalText).toBe(
      'After the restart: (steer from ada) use the v2 API | child: Task ' +
        `${runId}/task-1-later (worker) ended completed after 2 turns.\nChild found 42. | shell: exit code 0\nsecond-round\n`,
    );
    expect(record.children).toEqual([expect.objectContaining({ name: 'later', mode: 'background', outcome: 'completed' })]);
    expect(record.toolCalls.map((call) => [call.turn, call.name, call.ok])).toEqual([
      [1, 'task', true],
      [1, 'bash', true],
      [2, 'wait_for_job', true],
      [2, 'bash', true],
    ]);

    // The thread continues-as-new between runs; the queued message starts its next run there,
    // with the sticky agent and the first exchange as saved context.
    const thread = client().workflow.getHandle(threadId);
    const state = await waitUntil(
      () => thread.query(threadStateQuery),
      (s) => s.outcomes.some((o) => o.messageId === 'cli:queued-1' && o.kind === 'run'),
    );
    const threads = await runsOf(client(), threadId, 2);
    const second = state.outcomes.find((o) => o.messageId === 'cli:queued-1')!;
    // Started by the thread's second execution (its local activity, eagerly): the message was queued in the first and carried over.
    expect((await runsStartedBy(client(), threadId, threads[1])).map((run) => run.runId)).toEqual([second.runId]);
    expect((await runsStartedBy(client(), threadId, threads[0])).map((run) => run.runId)).toEqual([runId]);
    expect(second).toMatchObject({ kind: 'run', agent: 'coding', runId: `run:${threadId}:2` });
    expect(state).toMatchObject({ stickyAgent: 'coding', runCount: 2 });
    const input = await runInput(second.runId!);
    expect(input.context).toEqual([
      { role: 'user', text: 'count things' },
      { role: 'assistant', text: `(coding, completed) ${record.finalText}`, toolCalls: [] },
    ]);
    expect(input.request).toBe('and now the tests');
    expect(await kit.result(second.runId!)).toMatchObject({ outcome: 'completed', finalText: 'Tests: and now the tests' });
  });

  it('a unit keeps its phase, round and posted reviews across continue-as-new', async () => {
    const unitId = `unit:${REPO}:long-life`;
    const unit = await ship.start({ unitId, request: 'Add a greeting to the README', model: findingThenApprovalScript(ship, 'unit') });
    const checking = await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'checks' && state.round === 2,
      120_000,
    );
    // It continued-as-new at the boundary before its second coding round.
    expect(await runsOf(client(), unitId, 2)).not.toHaveLength(1);
    ship.github.setCheckRun(REPO, checking.headSha!, { name: 'ci', status: 'completed', conclusion: 'success' });
    const idle = await waitUntil(
      () => unit.query(unitStateQuery),
      (state: UnitState) => state.phase === 'idle',
      60_000,
    );
    expect(idle).toMatchObject({ round: 2, pullRequest: checking.pullRequest });
    // Each review was posted once: the finding before the restart, the approval after it.
    const reviews = ship.github.state.repo('acme', 'app')!.issues.get(idle.pullRequest!)!.reviews;
    expect(reviews).toHaveLength(2);
    expect(ship.github.state.countWrites('pull_request.create', REPO)).toBe(1);
    // The webhook of the review it posted before the restart is still known as its own, not a
    // person's (which would start another coding round).
    await unit.signal(prEventSignal, {
      deliveryId: 'own-review-late',
      repo: REPO,
      number: idle.pullRequest!,
      kind: 'review',
      reviewId: reviews[0].id,
      reviewState: 'changes_requested',
      actor: 'switchboard[bot]',
    });
    await signalProcessed(unitId);
    expect(await unit.query(unitStateQuery)).toMatchObject({ phase: 'idle', round: 2 });
    await unit.signal(stopSignal, { reason: 'done', by: 'tester' });
    expect(await unit.result()).toMatchObject({ outcome: 'stopped', rounds: 2, reviews: 2 });
  });

  /** Waits until the workflow completed a task after the last signal it received (so a query sees its effect). */
  async function signalProcessed(workflowId: string): Promise<void> {
    await waitUntil(
      async () => (await client().workflow.getHandle(workflowId).fetchHistory()).events ?? [],
      (events) => {
        const signalled = events.map((event) => Boolean(event.workflowExecutionSignaledEventAttributes)).lastIndexOf(true);
        return signalled >= 0 && events.slice(signalled).some((event) => Boolean(event.workflowTaskCompletedEventAttributes));
      },
    );
  }

  async function runInput(runId: string): Promise<RunInput> {
    const history = await client().workflow.getHandle(runId).fetchHistory();
    const payload = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
    return defaultPayloadConverter.fromPayload<RunInput>(payload);
  }
});
