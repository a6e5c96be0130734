import { builtinCatalog, getAgent, resolveProfile } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import type { RunInput } from '../contracts';
import { CallLog } from '../test-support';
import { RUN_READS_BOARD } from './board-read';
import { RUN_REPO_CONTEXT } from './repo-context';
import { RunOpening, type RunOpeningDeps } from './run-opening';
import { RunState } from './run-state';

function input(extra: Partial<RunInput> = {}): RunInput {
  const profile = resolveProfile({ agent: getAgent(builtinCatalog(), 'explore')!, config: defaultAgentsConfig(), directives: {} });
  return {
    threadId: 'thread:cli:1',
    profile,
    system: 's',
    request: 'why is the build slow?',
    requester: { id: 'ada', surface: 'cli' },
    context: [],
    replyTarget: { kind: 'github', repo: 'acme/app', pullRequest: 7 },
    board: { id: 'board:acme' },
    ...extra,
  };
}

/**
 * The steps before the first turn over fakes: what ran, in order, and the markers asked. A direct
 * run's checkout answers `problem`; `stopped` makes every cancellable step answer undefined unrun.
 */
async function open(run: RunInput, options: { direct?: boolean; problem?: string; before?: string[]; stopped?: boolean } = {}) {
  const log = new CallLog();
  const asked: string[] = [];
  const state = new RunState(run, 0);
  const parts = {
    workspace: { key: 'thread:cli:1', network: true },
    host: {
      activities: {
        instructions: { loadInstructions: log.fn('loadInstructions', () => ({ files: [], skipped: [], source: 'api' })) },
        shell: { bash: log.fn('bash', () => ({})) },
      },
    },
    ...(options.direct ? { direct: { prepare: log.fn('prepare', () => options.problem) } } : {}),
    mcpTools: { discover: log.fn('discover', () => undefined) },
  } as unknown as RunOpeningDeps['parts'];
  await new RunOpening({
    state,
    parts,
    card: { touch: () => log.calls.push({ name: 'touch', input: undefined }) },
    proxies: {
      repoReads: { repoSettings: log.fn('repoSettings', () => Promise.reject(new Error('no settings'))) } as never,
      boards: { readBoard: log.fn('readBoard', () => ({ found: true, entries: [] })) },
    },
    cancellable: async (work) => (options.stopped ? undefined : work()),
    patched: (id) => {
      asked.push(id);
      return !options.before?.includes(id);
    },
  }).open();
  return { names: log.names(), asked, state };
}

describe('RunOpening', () => {
  it("brings the checkout, the repository's instructions, the board and the MCP tools, in that order", async () => {
    const { names, asked, state } = await open(input(), { direct: true });
    expect(names).toEqual(['prepare', 'repoSettings', 'loadInstructions', 'touch', 'readBoard', 'touch', 'discover']);
    expect(asked).toEqual([RUN_REPO_CONTEXT, RUN_READS_BOARD]);
    expect(state.repoContext).toEqual({ repo: 'acme/app' });
    expect(state.board).toMatchObject({ id: 'board:acme', entries: 0 });
  });

  it('does none of the rest again in an execution that continues as new (the MCP tools decide from the carry)', async () => {
    const { names, asked } = await open(input({ carry: { deadline: 1 } as never }), { direct: true });
    expect(names).toEqual(['discover']);
    expect(asked).toEqual([]);
  });

  it('ends a direct run whose checkout cannot be made, before anything else', async () => {
    const { names, asked, state } = await open(input(), { direct: true, problem: 'pull request #7 is closed' });
    expect(names).toEqual(['prepare']);
    expect(asked).toEqual([]);
    expect(state.outcome).toBe('failed');
    expect(state.finalText).toBe('Not started: pull request #7 is closed.');
  });

  it('replays runs recorded before the repository context and the board without them', async () => {
    const { names, asked } = await open(input(), { before: [RUN_REPO_CONTEXT, RUN_READS_BOARD] });
    expect(names).toEqual(['discover']);
    expect(asked).toEqual([RUN_REPO_CONTEXT, RUN_READS_BOARD]);
  });

  it('starts no step once a stop came (each answers undefined), though the board still touches the card', async () => {
    const { names } = await open(input(), { direct: true, stopped: true });
    expect(names).toEqual(['touch']);
  });
});
