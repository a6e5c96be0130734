/**
 * Records the histories of issue 34's team boards (run alone with `npx jest --config
 * jest.record.config.js test/record/issue-34.record.ts`; docs/versioning.md): the new
 * `boardWorkflow` (changes, a refused one, a consolidation with its rem-agent child, a
 * continue-as-new), and the patches it brought: a run that reads its board (`run-reads-board`),
 * a unit that asks its board to consolidate it (`unit-settle-consolidates`), a thread that reads
 * slash commands (`thread-slash-commands`) and one that asks for a run's consolidation
 * (`thread-run-consolidates`). None overwrites an older history.
 */
import { type Client } from '@temporalio/client';
import { changeBoard, queryBoard } from '../../infra/board-client';
import { sendToThread } from '../../infra/thread-client';
import { prEventSignal, threadStateQuery, unitStateQuery, type BoardState, type ThreadMessage } from '../../workflows/contracts';
import { runsOf, saveHistory } from '../helpers/history';
import { startShipKit, type ShipKit } from '../helpers/ship-kit';
import { waitUntil } from '../helpers/wait';
import { shortHistoryEnvironment } from './servers';

jest.setTimeout(300_000);

const SHOP = 'acme/shop';
const NOTES = 'acme/notes';
const script = (name: string) => `scripted:kit/${name}.yaml`;
const tester = { id: 'tester', surface: 'cli' as const };

describe('issue 34: team boards', () => {
  let ship: ShipKit;
  const client = (): Client => ship.kit.env.client;
  const boardOf = async (boardId: string, check: (state: BoardState) => boolean) =>
    (await waitUntil(
      () => queryBoard(client(), boardId),
      (state) => state !== undefined && check(state),
      120_000,
    ))!;
  const send = (threadId: string, message: ThreadMessage) =>
    sendToThread(client(), ship.kit.taskQueue, {
      threadId,
      input: { threadId, replyTarget: { kind: 'cli' } },
      message,
      summary: 'recorder',
    });
  const settled = (threadId: string, outcomes: number) =>
    waitUntil(
      () => client().workflow.getHandle(threadId).query(threadStateQuery),
      (state) => state.currentRunId === undefined && state.outcomes.length === outcomes,
    );

  beforeAll(async () => {
    ship = await startShipKit('record-issue-34', {
      agents: {
        entries: {
          'rem-agent': { model: script('i34-rem') },
          'code-review': { model: script('i34-review') },
          general: { model: script('i34-general') },
        },
      },
    });
    ship.github.createRepo('acme', 'shop', { 'README.md': '# shop\n', '.switchboard.yml': 'board:\n  enabled: true\n' });
    ship.github.createRepo('acme', 'notes', {
      'README.md': '# notes\n',
      '.switchboard.yml': 'board:\n  enabled: true\n  consolidate: [runs]\n',
    });
    ship.kit.script('i34-rem', [
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'Hello, reader' },
            text: 'A convention.',
            toolCalls: [{ name: 'context_board', input: { action: 'add', kind: 'convention', text: 'The README greets its reader.' } }],
          },
          {
            when: { lastUserIncludes: 'npm run lint' },
            text: 'A command.',
            toolCalls: [{ name: 'context_board', input: { action: 'add', kind: 'command', text: 'Run npm run lint before pushing.' } }],
          },
          { text: 'Nothing worth keeping.' },
        ],
      },
      { text: 'Done: {{lastToolResult}}' },
    ]);
    ship.kit.script('i34-review', [{ text: 'No material issues.' }]);
    ship.kit.script('i34-general', [
      {
        text: 'Checking.',
        toolCalls: ['npm run lint', 'echo ok', 'echo done'].map((command) => ({ name: 'update_status', input: { summary: command } })),
      },
      { text: 'Run npm run lint before pushing.' },
    ]);
  });
  afterAll(async () => ship?.close());

  // New type: boardWorkflow with its rem-agent child. Patches: unit-settle-consolidates (the unit),
  // run-reads-board (the unit's runs read the board: the second unit's review finds an entry).
  test('issue 34: a settled unit consolidated by its board; the next unit reads it', async () => {
    const model = ship.kit.script('i34-unit', [
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Fine.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
          },
          {
            text: 'Changing.',
            toolCalls: [
              { name: 'bash', input: { command: 'echo "Hello, reader." >> README.md' } },
              { name: 'submit_description', input: { title: 'Greet the reader', body: 'Adds a greeting.' } },
            ],
          },
        ],
      },
      { text: 'done' },
    ]);
    const unitId = `unit:${SHOP}:record-board`;
    const unit = await ship.start({ unitId, repo: SHOP, request: 'Greet the reader', model });
    const idle = await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'idle',
      180_000,
    );
    await unit.signal(prEventSignal, {
      repo: SHOP,
      number: idle.pullRequest!,
      kind: 'merged',
      headSha: idle.headSha,
      deliveryId: 'rec-merged',
    });
    await unit.result();
    const board = await boardOf(
      'board:acme/shop',
      (state) => state.remRuns === 1 && state.consolidating === undefined && state.entries.length === 1,
    );
    expect(board.entries[0]).toMatchObject({ state: 'kept', kind: 'convention' });
    await saveHistory(client(), unitId, 'unit/settled-consolidated');
    await saveHistory(client(), 'board:acme/shop/rem-1', 'run/rem-agent');

    const next = await ship.start({ unitId: `${unitId}-2`, repo: SHOP, request: 'Greet the reader again', model });
    await waitUntil(
      () => next.query(unitStateQuery),
      (state) => state.phase === 'idle',
      180_000,
    );
    const review = await ship.kit.result(`${unitId}-2/review-1-1`);
    expect(review.board).toMatchObject({ id: 'board:acme/shop', shown: ['b1'] });
    await saveHistory(client(), review.runId, 'run/reads-board');
    await next.signal(prEventSignal, {
      repo: SHOP,
      number: (await next.query(unitStateQuery)).pullRequest!,
      kind: 'closed',
      deliveryId: 'rec-closed',
    });
    await next.result();
    await boardOf('board:acme/shop', (state) => state.remRuns === 2 && state.consolidating === undefined);
    await saveHistory(client(), 'board:acme/shop', 'board/consolidated');
  });

  // Patches: thread-slash-commands (/board, /subconscious run, /review, an unknown one),
  // thread-run-consolidates (a run on a repository whose board consolidates runs).
  test('issue 34: a thread reads slash commands and asks for its run to be consolidated', async () => {
    const threadId = 'thread:cli:record-issue-34';
    const say = (n: number, text: string) => send(threadId, { messageId: `cli:i34:${n}`, text, requester: tester });
    expect(await say(1, `agent:general in ${NOTES}: what do I run before pushing?`)).toMatchObject({ kind: 'run' });
    await settled(threadId, 1);
    await boardOf('board:acme/notes', (state) => state.remRuns === 1 && state.consolidating === undefined);
    expect(await say(2, `in ${NOTES}: /board`)).toMatchObject({ kind: 'answered' });
    expect(await say(3, `in ${NOTES}: /board add pitfall: The docs build needs Python 3.`)).toMatchObject({ kind: 'answered' });
    expect(await say(4, `in ${NOTES}: /subconscious run`)).toMatchObject({ kind: 'answered' });
    expect(await say(5, `in ${SHOP}: /review the greeting`)).toMatchObject({ kind: 'run', agent: 'code-review' });
    await settled(threadId, 5);
    expect(await say(6, '/deploy')).toMatchObject({ kind: 'refused', code: 'command_unknown' });
    await settled(threadId, 6);
    await saveHistory(client(), threadId, 'thread/slash-commands');
    await boardOf('board:acme/notes', (state) => state.remRuns === 2 && state.consolidating === undefined);
    await saveHistory(client(), 'board:acme/notes', 'board/run-consolidated');
  });
});

describe('issue 34: a board continues as new', () => {
  let short: Awaited<ReturnType<typeof shortHistoryEnvironment>>;
  let ship: ShipKit;
  beforeAll(async () => {
    short = await shortHistoryEnvironment();
    ship = await startShipKit('record-issue-34-short', { env: short.env });
  });
  afterAll(async () => {
    await ship?.close();
    await short?.close();
  });

  // New type: boardWorkflow taking changes (one refused) until its history is long, then going on in a new execution.
  test('issue 34: a board with changes, a refused one, continued as new', async () => {
    const client = ship.kit.env.client;
    const boardId = 'board:acme/record-short';
    const operator = { kind: 'person' as const, id: 'cli:op', keeps: true };
    const stranger = { kind: 'person' as const, id: 'slack:U9', keeps: false };
    const change = (body: Parameters<typeof changeBoard>[3]) => changeBoard(client, ship.kit.taskQueue, boardId, body);
    expect(await change({ action: 'add', kind: 'fact', text: 'The service listens on 8080.', actor: operator })).toMatchObject({
      ok: true,
    });
    expect(await change({ action: 'add', kind: 'pitfall', text: 'Tests share one port.', actor: stranger })).toMatchObject({
      ok: true,
      result: { effect: 'proposed' },
    });
    expect(await change({ action: 'keep', entryId: 'b2', actor: stranger })).toMatchObject({ ok: false });
    expect(await change({ action: 'keep', entryId: 'b2', actor: operator })).toMatchObject({ ok: true });
    for (let n = 0; n < 8; n += 1) await change({ action: 'confirm', entryId: 'b1', actor: operator });
    const runs = await runsOf(client, boardId, 2);
    expect((await queryBoard(client, boardId))?.entries.map((entry) => [entry.id, entry.state])).toEqual([
      ['b1', 'kept'],
      ['b2', 'kept'],
    ]);
    await saveHistory(client, boardId, 'board/changes', runs[0]);
    await saveHistory(client, boardId, 'board/continued', runs[1]);
  });
});
