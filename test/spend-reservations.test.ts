import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { createGitHubIdentities } from '../activities/github';
import { sendMessage } from '../cli/commands/ask';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import { resolveTemporalBinary } from '../infra/temporal-binaries';
import {
  releaseSpendSignal,
  reserveSpendUpdate,
  spendLedgerId,
  spendLedgerQuery,
  spendLedgerWorkflowType,
  stopSignal,
  sweepSpendUpdate,
  unitStateQuery,
  type RunRecord,
  type SpendLedgerState,
  type UnitRecord,
} from '../workflows/contracts';
import { startApiKit, type ApiKit } from './helpers/api-kit';
import { runCli } from './helpers/cli';
import { testTemporalAddress } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(300_000);
const exec = promisify(execFile);

/**
 * Money reserved before it is spent, end to end on the product: the real API door and worker,
 * a local GitHub, units whose coding runs really start in the sandbox, and the one spend ledger
 * workflow. Ten units asked for at once on a repository whose daily cap funds three rounds start
 * three; `switchboard usage` shows spent and reserved apart; a stopped, cancelled, terminated or
 * reset holder leaves no reservation held by closed work, and none twice.
 */
describe('spend reservations', () => {
  let api: ApiKit;
  let github: LocalGitHub;
  const owner = `spend-${randomUUID().slice(0, 6)}`;
  const repo = `${owner}/app`;
  let slowCoding: string;

  beforeAll(async () => {
    github = await startLocalGitHub({ tokens: { read: ['read-token'], write: ['write-token'] } });
    github.createRepo(owner, 'app', { 'README.md': '# app\n' });
    api = await startApiKit('spend-reserve', {
      github: createGitHubIdentities({
        apiUrl: github.apiUrl,
        gitUrl: github.gitUrl,
        tokens: { read: 'read-token', write: 'write-token' },
      }),
      tokens: { alice: { user: 'alice' }, cy: { user: 'cy' } },
      // A turn of 1,000 tokens in and 200 out costs $0.006.
      prices: { 'scripted:kit/priced-*': { input: 3, output: 15 } },
      spend: {
        people: { cy: { dailyUsd: 0.05 } },
        channels: {},
        repos: { [repo]: { dailyUsd: 0.03 } },
        agents: {},
        reserve: { unitRoundUsd: 0.01, sweepSeconds: 2 },
      },
    });
    // Each unit's coding run works on a command that outlasts the test, so its round stays reserved.
    slowCoding = api.kit.script('slow-coding', [
      { text: 'Working.', toolCalls: [{ name: 'bash', input: { command: 'sleep 900' } }] },
      { text: 'Done.' },
    ]);
  });
  afterAll(async () => {
    await api?.close();
    await github?.close();
  });

  const ledger = () => api.kit.client.workflow.getHandle(spendLedgerId(api.kit.taskQueue));
  const sweep = () => ledger().executeUpdate(sweepSpendUpdate, { args: [{ by: 'test' }] });
  const holders = (state: SpendLedgerState) => state.holds.map((hold) => hold.holder).sort();
  const usage = async () => {
    const printed = await runCli(api.kit, ['usage', '--since', '1h', '--by', 'repo,unit', '--json']);
    expect(printed).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(printed.stdout) as {
      runs: number;
      by: Record<string, { total: { usd: number } }>;
      reserved: {
        totalUsd: number;
        holds: Array<{ holder: string; usd: number }>;
        by: Record<string, { rows: Array<{ key: string; usd: number }> }>;
      };
    };
  };
  const startUnit = (request: string) =>
    api.call('/units', { as: 'alice', body: { repo, request, model: slowCoding } }).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as {
        unitId?: string;
        refusal?: string;
        detail?: string;
        reservedUsd?: number;
        capUsd?: number;
        neededUsd?: number;
        resetsAt?: string;
      },
    }));
  const closed = (workflowId: string) =>
    waitUntil(
      () => api.kit.client.workflow.getHandle(workflowId).describe(),
      (description) => description.status.name !== 'RUNNING',
      120_000,
    );

  let funded: string[] = [];

  it('ten units asked for at once on a capped repository: only as many start as the cap funds, the rest are refused with the amount and the reset time', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => startUnit(`Change number ${index} of the readme`)));
    const started = answers.filter((answer) => answer.status === 202);
    const refused = answers.filter((answer) => answer.status !== 202);
    expect(started).toHaveLength(3);
    expect(refused).toHaveLength(7);
    for (const answer of refused) {
      expect(answer).toMatchObject({ status: 403, body: { refusal: 'spend_cap', reservedUsd: 0.03, capUsd: 0.03, neededUsd: 0.01 } });
      expect(answer.body.detail).toMatch(
        new RegExp(
          `^Not started: Runs on ${repo} have spent \\$0\\.0000 today and \\$0\\.0300 is reserved by work in progress, and its daily spend cap is \\$0\\.0300; a ship unit's round needs \\$0\\.0100\\. The cap resets at 00:00 UTC`,
        ),
      );
      expect(answer.body.resetsAt).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
    }
    funded = started.map((answer) => answer.body.unitId!).sort();
    expect(holders(await ledger().query(spendLedgerQuery))).toEqual(funded);
    // Each funded unit really works: its coding run has started its command.
    for (const unitId of funded)
      await waitUntil(
        () => api.kit.client.workflow.getHandle(unitId).query(unitStateQuery),
        (state) => state.currentRun !== undefined && state.spend?.reservedUsd === 0.01,
        120_000,
      );

    // `switchboard usage` shows what was spent (nothing yet) and, apart, what is reserved.
    const shown = await usage();
    expect(shown.reserved.totalUsd).toBe(0.03);
    expect(shown.reserved.holds.map((hold) => hold.holder).sort()).toEqual(funded);
    expect(shown.reserved.by.repo.rows).toEqual([{ key: repo, usd: 0.03, holders: 3 }]);
    const text = await runCli(api.kit, ['usage', '--since', '1h', '--by', 'repo']);
    expect(text.stdout).toMatch(/^Reserved now, apart from what was spent: \$0\.0300 held by 3 starts in progress$/m);
  });

  it('a stopped, cancelled, terminated or reset holder leaves no reservation held by closed work, and none twice', async () => {
    const [stopped, terminated, reset] = funded;
    const client = api.kit.client;
    // Stopped by a person: it settles and releases to what it spent; the ledger counts that, not the round.
    await client.workflow.getHandle(stopped).signal(stopSignal, { reason: 'enough', by: 'alice' });
    expect(((await client.workflow.getHandle(stopped).result()) as UnitRecord).outcome).toBe('stopped');
    await waitUntil(
      () => ledger().query(spendLedgerQuery),
      (state) => !holders(state).includes(stopped),
    );

    // Terminated from Temporal: it cannot release; the ledger's sweep finds it closed.
    await client.workflow.getHandle(terminated).terminate('test: terminated holder');
    await waitUntil(
      () => sweep(),
      (state) => !holders(state).includes(terminated),
    );

    // Reset to its first task: the new execution reserves again as the same holder, never twice.
    await exec(resolveTemporalBinary('cli').path, [
      'workflow',
      'reset',
      '--address',
      testTemporalAddress(),
      '--workflow-id',
      reset,
      '--type',
      'FirstWorkflowTask',
      '--reason',
      'test: reset holder',
      '--yes',
    ]);
    await waitUntil(
      () => client.workflow.getHandle(reset).query(unitStateQuery),
      (state) => state.spend?.reservedUsd === 0.01,
      120_000,
    );
    const afterReset = await sweep();
    expect(afterReset.holds.filter((hold) => hold.holder === reset)).toHaveLength(1);
    expect(holders(afterReset)).toEqual([reset]);
    expect(afterReset.sweptHolders).toBeGreaterThanOrEqual(1);

    // The money the closed units held is free again: a new unit is funded.
    const again = await startUnit('One more change to the readme');
    expect(again.status).toBe(202);
    // Cancelled (a workflow cancel request): it settles stopped and releases.
    await client.workflow.getHandle(again.body.unitId!).cancel();
    await closed(again.body.unitId!);
    await client.workflow.getHandle(reset).signal(stopSignal, { reason: 'test over', by: 'alice' });
    await closed(reset);
    const end = await sweep();
    expect(end.holds).toEqual([]);
    const shown = await usage();
    expect(shown.reserved).toMatchObject({ totalUsd: 0, holds: [] });
  });

  it("a run reserves its whole bound: a second run at once is refused on the first one's account, then bounded by what the first left", async () => {
    const slow = api.kit.script('priced-slow', [
      {
        text: 'Thinking.',
        usage: { inputTokens: 1_000, outputTokens: 200 },
        toolCalls: [{ name: 'update_status', input: { text: 'one' } }],
      },
      { text: 'Still thinking.', delayMs: 600_000 },
    ]);
    const quick = api.kit.script('priced-quick', [{ text: 'Answered.', usage: { inputTokens: 1_000, outputTokens: 200 } }]);
    const first = await api.kit.start('a long question', { requester: 'cy', agent: 'general', model: slow });
    await waitUntil(
      () => ledger().query(spendLedgerQuery),
      (state) => state.holds.some((hold) => hold.holder === first.runId && hold.usd === 0.05),
    );
    const second = await sendMessage(api.kit.client, api.kit.taskQueue, 'a quick one', { requester: 'cy', agent: 'general', model: quick });
    expect(second.outcome).toMatchObject({ kind: 'refused', code: 'spend_cap' });
    // What the first run spent so far counts as spent, the rest of its reservation as reserved: together the whole cap.
    const [, spentSoFar, heldRest] =
      /^Not started: You have spent \$(\d\.\d{4}) today and \$(\d\.\d{4}) is reserved by work in progress, and your daily spend cap is \$0\.0500\./.exec(
        second.outcome.reply ?? '',
      ) ?? [];
    expect(Number(spentSoFar) + Number(heldRest)).toBeCloseTo(0.05, 6);
    // The first ends having spent $0.006: released to that, so the next is bounded by what is left.
    await api.kit.client.workflow.getHandle(first.runId).signal(stopSignal, { reason: 'enough', by: 'cy' });
    const record: RunRecord = await api.kit.result(first.runId);
    expect(record.cost.usd).toBe(0.006);
    const ledgerAfter = await waitUntil(
      () => ledger().query(spendLedgerQuery),
      (state) => !holders(state).includes(first.runId),
    );
    expect(ledgerAfter.settled).toEqual(expect.arrayContaining([expect.objectContaining({ holder: first.runId, usd: 0.006 })]));
    const third = await api.kit.start('a quick one', { requester: 'cy', agent: 'general', model: quick });
    const thirdRecord = await api.kit.result(third.runId);
    expect(thirdRecord.spendCap).toEqual({ usd: 0.044, boundedBy: 'what was left ($0.0440) of the $0.0500 daily cap of person cy' });
    await waitUntil(
      () => sweep(),
      (state) => state.holds.length === 0,
    );
  });

  it('the ledger continues as new with its reservations, settled holders and count intact', async () => {
    const client = api.kit.client;
    const ledgerId = `spend-ledger:continues-${randomUUID().slice(0, 6)}`;
    const handle = await client.workflow.start(spendLedgerWorkflowType, {
      workflowId: ledgerId,
      taskQueue: api.kit.taskQueue,
      args: [{ sweepSeconds: 3_600, historyLimit: 40 }],
    });
    const caps = [{ kind: 'repo' as const, id: 'elsewhere/app', dailyUsd: 1 }];
    const reserve = (holder: string) =>
      handle.executeUpdate(reserveSpendUpdate, {
        args: [
          {
            holder,
            by: 'test',
            kind: 'unit',
            atLeastUsd: 0.1,
            upToUsd: 0.1,
            scope: { person: 'alice', repo: 'elsewhere/app', agent: 'ship' },
            caps,
            threadId: holder,
          },
        ],
      });
    for (let index = 0; index < 8; index += 1)
      expect(await reserve(`unit:elsewhere/app:held-${index}`)).toMatchObject({ kind: 'admit', held: 0.1 });
    await handle.signal(releaseSpendSignal, { holder: 'unit:elsewhere/app:held-0', spentUsd: 0.05, by: 'test' });
    // Past its history limit it continued as new, carrying everything: two more rounds fit ($0.05 spent, $0.70 held), a third does not.
    const after = await waitUntil(
      () => handle.describe(),
      (description) => description.runId !== handle.firstExecutionRunId,
    );
    expect(after.status.name).toBe('RUNNING');
    expect(await reserve('unit:elsewhere/app:held-8')).toMatchObject({ kind: 'admit' });
    expect(await reserve('unit:elsewhere/app:held-9')).toMatchObject({ kind: 'admit' });
    expect(await reserve('unit:elsewhere/app:held-10')).toMatchObject({ kind: 'refuse', spentUsd: 0.05, reservedUsd: 0.9 });
    const state = await handle.query(spendLedgerQuery);
    expect(state.holds).toHaveLength(9);
    expect(state.settled).toEqual([expect.objectContaining({ holder: 'unit:elsewhere/app:held-0', usd: 0.05 })]);
    await handle.terminate('test over');
  });
});
