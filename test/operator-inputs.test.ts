import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { CLAIM_CHECK_ENCODING, dataConverterFromConfig } from '../infra/payloads';
import { resolveTemporalBinary } from '../infra/temporal-binaries';
import { sendToThread } from '../infra/thread-client';
import { changeBoard } from '../infra/board-client';
import {
  MESSAGE_INPUTS,
  planStateQuery,
  planWorkflowType,
  spendLedgerId,
  spendLedgerWorkflowType,
  sweepSpendUpdate,
  runStatusQuery,
  sendMessageUpdate,
  steerUpdate,
  stopSignal,
  threadStateQuery,
  unitStateQuery,
  type RunRecord,
  type UnitRecord,
} from '../workflows/contracts';
import { planUnitId } from '../workflows/plan/plan-failed';
import { malformedCases, sampleCases, seeded, type MalformedCase } from './helpers/malformed';
import { REPO, startShipKit, type ShipKit } from './helpers/ship-kit';
import { testTemporalAddress } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(300_000);
const exec = promisify(execFile);

/** Cases per message: the whole-input ones and a seeded sample of the field ones (FUZZ_CASES for more). */
const CASES = Number(process.env.FUZZ_CASES ?? 10);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 100_000);

/** The real `temporal` CLI, as an operator runs it; a non-zero exit is returned, not thrown. */
async function temporal(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(resolveTemporalBinary('cli').path, [...args, '--address', testTemporalAddress()]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const inputFlags = (args: unknown[]) => args.flatMap((arg) => ['--input', JSON.stringify(arg)]);

/** The workflow's own account of its handlers and current details (`temporal workflow metadata`). */
async function metadata(workflowId: string): Promise<{ signals: string[]; updates: string[]; currentDetails: string }> {
  const shown = await temporal(['workflow', 'metadata', '--workflow-id', workflowId, '--output', 'json']);
  if (shown.code !== 0) throw new Error(shown.stderr);
  const [parsed] = (
    JSON.parse(shown.stdout) as {
      queryResult: Array<{
        definition?: { signalDefinitions?: Array<{ name: string }>; updateDefinitions?: Array<{ name: string }> };
        currentDetails?: string;
      }>;
    }
  ).queryResult;
  if (!parsed) throw new Error(`no metadata: ${shown.stdout}`);
  const names = (list?: Array<{ name: string }>) => (list ?? []).map((entry) => entry.name).filter((name) => !name.startsWith('__'));
  return {
    signals: names(parsed.definition?.signalDefinitions),
    updates: names(parsed.definition?.updateDefinitions),
    currentDetails: parsed.currentDetails ?? '',
  };
}

/** Every workflow task of the workflow completed: none failed, so nothing a test sent wedged it. */
async function failedTasks(ship: ShipKit, workflowId: string): Promise<string[]> {
  const history = await ship.kit.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((event) => event.workflowTaskFailedEventAttributes)
    .map((event) => event.workflowTaskFailedEventAttributes?.failure?.message ?? '(no message)');
}

/**
 * Every signal and update of every workflow type, sent malformed by hand from the real
 * `temporal` CLI: updates are refused naming the field, signals are dropped and counted in the
 * workflow's current details; no workflow task fails and each workflow still serves a
 * well-formed message afterwards.
 */
describe('malformed operator input', () => {
  let ship: ShipKit;
  // The worker runs the deployment's claim-check codec, as infra/main.ts gives it.
  const payloads = mkdtempSync(join(tmpdir(), 'operator-inputs-payloads-'));
  const settings = { dataDir: payloads, payloads: { claimCheckBytes: 8 * 1024, dir: payloads } };
  beforeAll(async () => {
    ship = await startShipKit('operator-inputs', {
      dataConverter: dataConverterFromConfig(settings),
      workerDataConverter: dataConverterFromConfig(settings, { worker: true }),
    });
  });
  afterAll(async () => {
    await ship?.close();
    rmSync(payloads, { recursive: true, force: true });
  });

  /** A well-formed reference, as history holds them: to nothing, or to a blob whose bytes are not what it names. */
  const reference = (corrupt: boolean) => {
    const hex = randomBytes(32).toString('hex');
    if (corrupt) {
      mkdirSync(join(payloads, hex.slice(0, 2)), { recursive: true });
      writeFileSync(join(payloads, hex.slice(0, 2), hex), 'not the payload it names');
    }
    return ['--input', JSON.stringify({ claimCheck: `sha256:${hex}`, bytes: 12 }), '--input-meta', `encoding=${CLAIM_CHECK_ENCODING}`];
  };

  it('never fails a workflow task of a thread, a run, a unit, a plan, a board or the spend ledger, and each still serves a valid message', async () => {
    const random = seeded(SEED);
    console.log(`fuzz seed ${SEED} (FUZZ_SEED=${SEED} repeats this run), ${CASES} cases per message`);
    // The plan's first unit codes in a run that waits on a long command: plan, unit and run all stay open.
    const model = ship.model([{ text: 'Working.', toolCalls: [{ name: 'bash', input: { command: 'sleep 600' } }] }, { text: 'Done.' }]);
    const planId = `plan:${REPO}:fuzz-${randomUUID().slice(0, 6)}`;
    const planInput = {
      planId,
      repo: REPO,
      replyTarget: { kind: 'cli' as const },
      requester: { id: 'tester', surface: 'cli' as const },
      model,
      mergeAuthority: false,
      units: [
        { key: 'first', request: 'Add the first file' },
        { key: 'second', request: 'Add the second file', dependsOn: ['first'] },
      ],
    };
    const plan = await ship.kit.client.workflow.start(planWorkflowType, {
      workflowId: planId,
      taskQueue: ship.kit.taskQueue,
      args: [planInput],
    });
    const unitId = planUnitId(planInput, 'first');
    const runId = `${unitId}/coding-1-1`;
    await waitUntil(
      () => ship.kit.client.workflow.getHandle(runId).query(runStatusQuery),
      (status) => status.phase === 'tools',
      120_000,
    );
    // A thread with one finished run, waiting for its next message.
    const threadId = `thread:cli:${randomUUID()}`;
    const hello = ship.kit.script('fuzz-hello', [{ text: 'Hello.' }]);
    const delivery = (text: string) => ({
      threadId,
      input: { threadId, replyTarget: { kind: 'cli' as const } },
      message: { messageId: `fuzz:${randomUUID()}`, text, requester: { id: 'tester', surface: 'cli' as const } },
      summary: 'fuzz',
    });
    const first = await sendToThread(ship.kit.client, ship.kit.taskQueue, delivery(`agent:general model:${hello} hi`));
    // The deployment's spend ledger, idle (it holds nothing until a start reserves).
    const ledgerId = spendLedgerId(ship.kit.taskQueue);
    await ship.kit.client.workflow.start(spendLedgerWorkflowType, { workflowId: ledgerId, taskQueue: ship.kit.taskQueue, args: [{}] });
    await ship.kit.client.workflow.getHandle(first!.runId!).result();
    // A team board with one kept entry.
    const boardId = `board:acme/fuzz-${randomUUID().slice(0, 6)}`;
    const operator = { kind: 'person' as const, id: 'cli:op', keeps: true };
    const added = await changeBoard(ship.kit.client, ship.kit.taskQueue, boardId, {
      action: 'add',
      kind: 'fact',
      text: 'A fact.',
      actor: operator,
    });
    expect(added).toMatchObject({ ok: true, result: { effect: 'added' } });

    // A well-formed input of each message, which the cases are made from (never sent as is).
    const valid: Record<string, Record<string, Record<string, unknown>>> = {
      threadWorkflow: {
        message: {
          messageId: 'm-1',
          text: 'hello',
          requester: { id: 'op', surface: 'cli', grant: { agents: ['general'], rule: 'r' } },
          replyTarget: { kind: 'github', repo: REPO, pullRequest: 1 },
        },
        sendMessage: {
          messageId: 'm-2',
          text: 'hello',
          requester: { id: 'op', surface: 'slack', displayName: 'Op' },
          replyTarget: { kind: 'slack', team: 'T', channel: 'C', threadTs: '1.2' },
        },
        stop: { reason: 'enough', by: 'op' },
        resend: { effectKey: 'k', by: 'op', reason: 'missing' },
        // A run's end as a run tells it (only the thread's current run's is taken; this thread has none).
        runEnded: {
          runId: `run:${threadId}:9`,
          record: {
            runId: `run:${threadId}:9`,
            outcome: 'completed',
            finalText: 'done',
            requester: { id: 'op' },
            profile: { agent: 'general' },
            toolCalls: [],
            stop: { by: 'op', reason: 'enough' },
            cost: { usd: 0 },
            workspaceHost: 'q@h',
            unconfirmed: [
              {
                effectKey: 'k',
                kind: 'reply',
                target: 'cli',
                text: 't',
                reason: 'lost',
                at: 1,
                call: { activity: 'deliverReply', input: {} },
              },
            ],
            reviewed: { commitSha: 'abc', status: 'confirmed' },
            submissions: { submit_review: { findings: [{ title: 't', scenario: 's', impact: 'i' }] } },
          },
          failed: 'it failed',
          terminated: false,
        },
      },
      agentRunWorkflow: { steer: { text: 'go left', by: 'op' }, stop: { reason: 'enough', by: 'op' } },
      shipUnitWorkflow: {
        steer: { text: 'go left', by: 'op' },
        stop: { reason: 'enough', by: 'op' },
        prEvent: {
          deliveryId: 'd',
          repo: REPO,
          number: 1,
          kind: 'review',
          headSha: 'abc',
          reviewState: 'commented',
          reviewId: 3,
          actor: 'op',
        },
        checks: { deliveryId: 'd', repo: REPO, number: 1, headSha: 'abc', source: 'check_run', name: 'ci', conclusion: 'success' },
        merge: { by: 'op' },
        resend: { effectKey: 'k', by: 'op' },
      },
      planWorkflow: {
        unitUpdate: { key: 'first', unitId, status: 'settled', outcome: 'merged', pullRequest: 4, headSha: 'abc', spentUsd: 0.5 },
        stop: { reason: 'enough', by: 'op' },
        resend: { effectKey: 'k', by: 'op' },
      },
      boardWorkflow: {
        boardChange: { action: 'retire', entryId: 'b1', reason: 'stale', key: 'k', actor: { kind: 'person', id: 'op', keeps: true } },
        consolidate: {
          key: 'k',
          trigger: 'command',
          sources: ['run:x'],
          requester: { id: 'op', surface: 'cli' },
          replyTarget: { kind: 'cli' },
          threadId: 'thread:cli:x',
        },
      },
      spendLedgerWorkflow: {
        reserve: {
          holder: 'unit:acme/app:x',
          by: 'op',
          kind: 'unit',
          atLeastUsd: 1,
          upToUsd: 1,
          scope: { person: 'op', repo: REPO, agent: 'ship' },
          caps: [{ kind: 'repo', id: REPO, dailyUsd: 5 }],
          threadId: 'thread:cli:x',
        },
        release: { holder: 'unit:acme/app:x', spentUsd: 0.5, by: 'op' },
        sweep: { by: 'op' },
      },
    };
    const targets = [
      { type: 'threadWorkflow', workflowId: threadId },
      { type: 'agentRunWorkflow', workflowId: runId },
      { type: 'shipUnitWorkflow', workflowId: unitId },
      { type: 'planWorkflow', workflowId: planId },
      { type: 'boardWorkflow', workflowId: boardId },
      { type: 'spendLedgerWorkflow', workflowId: ledgerId },
    ];
    const sent: Record<string, number> = {};
    for (const target of targets) {
      // The workflow's own list of handlers is the list the contracts check (and this test drives).
      const declared = await metadata(target.workflowId);
      const listed = MESSAGE_INPUTS[target.type];
      expect(declared.signals.sort()).toEqual(
        listed
          .filter((entry) => entry.kind === 'signal')
          .map((entry) => entry.name)
          .sort(),
      );
      expect(declared.updates.sort()).toEqual(
        listed
          .filter((entry) => entry.kind === 'update')
          .map((entry) => entry.name)
          .sort(),
      );
      sent[target.workflowId] = 0;
      for (const entry of listed) {
        const cases: Array<MalformedCase & { flags?: string[] }> = [
          ...sampleCases(malformedCases(entry, valid[target.type][entry.name]), CASES, random),
          // Payloads that are not JSON objects at all: a typo in the encoding, raw bytes.
          {
            label: 'an unknown encoding',
            args: [],
            flags: ['--input', '"x"', '--input-meta', 'encoding=foo/bar'],
            problem: 'could not be decoded',
          },
          { label: 'raw bytes', args: [], flags: ['--input', '"x"', '--input-meta', 'encoding=binary/plain'], problem: '(got bytes)' },
          // Our claim-check encoding with no reference this codec could have written.
          {
            label: 'a forged claim check',
            args: [],
            flags: ['--input', '{"x":1}', '--input-meta', `encoding=${CLAIM_CHECK_ENCODING}`],
            problem: 'could not be decoded',
          },
          // Well-formed references the store cannot resolve: the codec would throw on every task.
          { label: 'a reference to nothing', args: [], flags: reference(false), problem: 'is not in the payload store' },
          { label: 'a reference to other bytes', args: [], flags: reference(true), problem: 'holds other bytes in the payload store' },
        ];
        for (const malformed of cases) {
          const what = `${target.type} ${entry.kind} ${entry.name} with ${malformed.label}`;
          if (entry.kind === 'signal') {
            const result = await temporal([
              'workflow',
              'signal',
              '--workflow-id',
              target.workflowId,
              '--name',
              entry.name,
              ...(malformed.flags ?? inputFlags(malformed.args)),
            ]);
            expect({ what, code: result.code, stderr: result.stderr }).toEqual({ what, code: 0, stderr: '' });
            sent[target.workflowId] += 1;
          } else {
            const result = await temporal([
              'workflow',
              'update',
              'execute',
              '--workflow-id',
              target.workflowId,
              '--name',
              entry.name,
              ...(malformed.flags ?? inputFlags(malformed.args)),
            ]);
            expect({ what, code: result.code }).toEqual({ what, code: 1 });
            // The refusal names the field, in the contract's words.
            expect({ what, stderr: result.stderr }).toEqual({ what, stderr: expect.stringContaining(malformed.problem) });
          }
        }
      }
    }

    // Each still serves a well-formed message (an update answered after every signal above was taken).
    const client = ship.kit.client;
    const refused = await client.workflow
      .getHandle(threadId)
      .executeUpdate(sendMessageUpdate, { args: [{ messageId: 'no-requester', text: 'hi' } as never] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((refused as WorkflowUpdateFailedError).cause).toMatchObject({
      type: 'invalid_input',
      nonRetryable: true,
      message: 'sendMessage: `requester` is missing',
    });
    const again = await sendToThread(client, ship.kit.taskQueue, delivery(`model:${hello} still there?`), { existing: true });
    expect(again).toMatchObject({ kind: 'run', runId: `run:${threadId}:2` });
    expect((await client.workflow.getHandle(again!.runId!).result()).outcome).toBe('completed');
    expect(await client.workflow.getHandle(runId).executeUpdate(steerUpdate, { args: [{ text: 'still there?', by: 'tester' }] })).toEqual({
      accepted: true,
      pending: 1,
    });
    expect(await client.workflow.getHandle(unitId).executeUpdate(steerUpdate, { args: [{ text: 'still there?', by: 'tester' }] })).toEqual({
      accepted: true,
    });
    expect((await client.workflow.getHandle(planId).query(planStateQuery)).units.map((unit) => unit.status)).toEqual([
      'running',
      'waiting',
    ]);
    expect((await client.workflow.getHandle(threadId).query(threadStateQuery)).runCount).toBe(2);
    expect((await client.workflow.getHandle(unitId).query(unitStateQuery)).phase).toBe('coding');
    expect(await changeBoard(client, ship.kit.taskQueue, boardId, { action: 'keep', entryId: 'b1', actor: operator })).toMatchObject({
      ok: true,
      result: { effect: 'unchanged', entry: { id: 'b1', state: 'kept' } },
    });
    expect(await client.workflow.getHandle(ledgerId).executeUpdate(sweepSpendUpdate, { args: [{ by: 'tester' }] })).toMatchObject({
      holds: [],
    });

    // The drops are counted where an operator looks: the workflow's current details.
    for (const target of targets) {
      const { currentDetails } = await metadata(target.workflowId);
      expect({ workflowId: target.workflowId, currentDetails }).toEqual({
        workflowId: target.workflowId,
        currentDetails: expect.stringContaining(`${sent[target.workflowId]} malformed signals dropped`),
      });
    }

    // A well-formed stop still stops the plan, its unit and the unit's run.
    await plan.signal(stopSignal, { reason: 'fuzz over', by: 'tester' });
    expect((await plan.result()).outcome).toBe('stopped');
    expect(((await client.workflow.getHandle(unitId).result()) as UnitRecord).outcome).toBe('stopped');
    expect(((await client.workflow.getHandle(runId).result()) as RunRecord).outcome).toBe('stopped');
    for (const target of targets)
      expect({ workflowId: target.workflowId, failed: await failedTasks(ship, target.workflowId) }).toEqual({
        workflowId: target.workflowId,
        failed: [],
      });
  });
});
