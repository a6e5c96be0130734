import type { AgentSetup } from '../../activities/agents/agent-setup';
import { DEFAULT_SHIP_SETTINGS } from '../../activities/agents/agent-setup';
import type { ReplyInput } from '../contracts/status';
import { boardPolicy, builtinCatalog } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import type { BoardSettingsInput } from '../../infra/config/board-section';
import type { ConsolidationRequest, RunInput, RunRecord } from '../contracts';
import { BoardBook, initialBook } from './board-book';
import { Consolidation } from './consolidation';

const request = (over: Partial<ConsolidationRequest> = {}): ConsolidationRequest => ({
  key: 'unit:acme/app:x/consolidate',
  trigger: 'unit',
  sources: ['unit:acme/app:x'],
  requester: { id: 'slack:U9', surface: 'slack' },
  replyTarget: { kind: 'cli' },
  ...over,
});

/** A consolidation with fakes: the board's settings, the started runs (each adds one entry as its run would), the replies. */
function harness(settings: BoardSettingsInput | undefined) {
  const book = new BoardBook(initialBook());
  const started: Array<{ id: string; input: RunInput }> = [];
  const replies: ReplyInput[] = [];
  const setup: AgentSetup = { catalog: builtinCatalog(), config: defaultAgentsConfig(), ship: DEFAULT_SHIP_SETTINGS };
  const consolidation = new Consolidation({
    input: { boardId: 'board:acme/app', repo: 'acme/app' },
    book,
    loadSetup: async () => setup,
    repoSettings: async () => ({
      repo: 'acme/app',
      file: 'found',
      problems: [],
      settings: {
        review: { triggers: [], debounceSeconds: 60, severity: 'minor' },
        issues: { assign: true },
        ...(settings ? { board: boardPolicy('board:acme/app', settings) } : {}),
      },
    }),
    readTrajectory: async ({ sources }) => ({ text: `the work of ${sources.join(', ')}`, read: sources, missing: [] }),
    deliverReply: async (reply) => {
      replies.push(reply);
      return { status: 'confirmed' } as never;
    },
    startRun: async (id, input) => {
      started.push({ id, input });
      const actor = { kind: 'agent' as const, id, keeps: input.board!.writes!.keeps, onBehalfOf: input.board!.writes!.onBehalfOf };
      book.apply({ key: `${id}/context_board/1.0`, actor, action: 'add', kind: 'fact', text: `learned in ${id}` }, 1);
      return { result: async () => ({ outcome: 'completed' }) as RunRecord };
    },
  });
  return { book, started, replies, consolidation };
}

describe('Consolidation', () => {
  it("runs rem-agent over the work's trajectory as the board's child; a stranger's entries stay proposed, and the conversation is told", async () => {
    const { consolidation, started, book, replies } = harness({ enabled: true });
    const outcome = await consolidation.run(request(), 1);
    expect(outcome).toMatchObject({ runId: 'board:acme/app/rem-1', changes: [{ effect: 'proposed' }] });
    expect(started[0].input).toMatchObject({
      profile: { agent: 'rem-agent', tools: ['context_board'] },
      replyTarget: { kind: 'api' },
      board: { id: 'board:acme/app', writes: { keeps: false, onBehalfOf: 'slack:U9' } },
    });
    expect(started[0].input.request).toContain('<trajectory>\nthe work of unit:acme/app:x\n</trajectory>');
    expect(started[0].input.request).toContain('who is not a keeper of this board: what you add stays proposed');
    expect(book.state.entries[0]).toMatchObject({ state: 'proposed' });
    expect(replies).toEqual([
      {
        effectKey: 'board:acme/app/rem-1/note',
        replyTarget: { kind: 'cli' },
        text: [
          'rem-agent (board:acme/app/rem-1) read this work and changed the team board of acme/app:',
          '- proposed: b1 [fact, proposed] learned in board:acme/app/rem-1',
          'A keeper keeps a proposed entry with /board keep b1 (or retires it with /board retire b1).',
        ].join('\n'),
      },
    ]);
  });

  it("a keeper's work is kept at once", async () => {
    const { consolidation, book } = harness({ enabled: true, keepers: { people: ['slack:UKEEP'] } });
    await consolidation.run(request({ requester: { id: 'slack:UKEEP', surface: 'slack' } }), 1);
    expect(book.state.entries[0]).toMatchObject({ state: 'kept' });
  });

  it.each([
    ['the board is off', undefined, request()],
    ['the board is not enabled', { consolidate: ['units' as const] }, request()],
    ['runs are not consolidated by default', { enabled: true }, request({ trigger: 'run', sources: ['run:t:1'] })],
  ])('runs nothing when %s', async (_why, settings, asked) => {
    const { consolidation, started } = harness(settings);
    expect(await consolidation.run(asked, 1)).toMatchObject({ changes: [], skipped: expect.any(String) });
    expect(started).toEqual([]);
  });

  it('a person who may not use rem-agent is not consolidated for', async () => {
    const { consolidation, started } = harness({ enabled: true });
    const narrowed = request({
      requester: { id: 'slack:U9', surface: 'slack', grant: { agents: ['general'], rule: 'api.tokens.t.agents' } },
    });
    expect(await consolidation.run(narrowed, 1)).toMatchObject({ skipped: expect.stringMatching(/rem-agent|REM/) });
    expect(started).toEqual([]);
  });
});
