import type { BoardActivityTypes } from '../activity-proxies';
import type { RunProxies } from './run-parts';
import { readRunBoard, boardToRead, RUN_READS_BOARD } from './board-read';
import type { InFlight } from './in-flight';
import { RepoContextLoader, RUN_REPO_CONTEXT, runRepository } from './repo-context';
import type { RunParts } from './run-parts';
import type { RunState } from './run-state';
import type { StatusCard } from './status-card';

export interface RunOpeningDeps {
  state: RunState;
  parts: Pick<RunParts, 'workspace' | 'host' | 'direct' | 'mcpTools'>;
  card: Pick<StatusCard, 'touch'>;
  proxies: Pick<RunProxies, 'repoReads'> & { boards: Pick<BoardActivityTypes, 'readBoard'> };
  /** InFlight.cancellable: a stop or the deadline cancels each step. */
  cancellable: InFlight['cancellable'];
  /** `patched` from the SDK (a fake in unit tests). */
  patched: (id: string) => boolean;
}

/**
 * What a run does before its first model turn, in this order: a direct run's checkout, the
 * repository's instructions into the system prompt and its setup in the checkout, the team
 * board's kept entries, and the MCP servers' tools. An execution that continues as new
 * carries all of it and does none of it again.
 */
export class RunOpening {
  constructor(private readonly deps: RunOpeningDeps) {}

  async open(): Promise<void> {
    const { state, parts, card, cancellable, patched } = this.deps;
    const { input } = state;
    const { direct, mcpTools } = parts;
    if (direct && !input.carry) {
      const problem = await cancellable(() => direct.prepare());
      if (problem) {
        state.finalText = `Not started: ${problem}.`;
        state.finish('failed', problem);
      }
    }
    // The repository's instructions into the system prompt, its setup in the checkout.
    const repo = runRepository(state);
    let loader: RepoContextLoader | undefined;
    if (!input.carry && repo && !state.finished && patched(RUN_REPO_CONTEXT)) {
      loader = this.repoContext();
      await cancellable(() => loader!.load(repo));
    }
    // The team board's kept entries into the system prompt, once (its repository's, or its channel's).
    const board = input.carry ? undefined : boardToRead(input, loader?.settings?.settings.board);
    if (board && !state.finished && patched(RUN_READS_BOARD)) {
      await cancellable(() => readRunBoard(state, board, this.deps.proxies.boards));
      card.touch();
    }
    if (mcpTools && !state.finished) await cancellable(() => mcpTools.discover());
  }

  private repoContext(): RepoContextLoader {
    const { state, parts, card, proxies } = this.deps;
    return new RepoContextLoader({
      state,
      workspace: parts.workspace,
      // A unit's runs and direct runs work in a checkout of the repository; other runs clone it themselves, if at all.
      checkout: state.input.submitsTo === 'unit' || state.direct !== undefined,
      activities: { settings: proxies.repoReads, instructions: parts.host.activities.instructions!, shell: parts.host.activities.shell },
      touchCard: () => card.touch(),
    });
  }
}
