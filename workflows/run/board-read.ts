import { isCancellation } from '@temporalio/workflow';
import { BOARD_DEFAULTS, boardBlock, type BoardPolicy } from '../../agents/board';
import type { BoardActivityTypes } from '../activity-proxies';
import type { RunBoardRef, RunInput } from '../contracts';
import type { RunState } from './run-state';

/**
 * The `patched()` id of a run that reads its team board before its first turn (docs/board.md,
 * docs/versioning.md). Runs recorded before it read none; a run whose repository (or channel) has
 * no board on never reaches it.
 */
export const RUN_READS_BOARD = 'run-reads-board';

/**
 * The board a run reads: its repository's, when the repository's settings turn the board on (a
 * unit's runs, a thread's, their task children alike), else the one its input names (a Slack
 * channel's). A rem-agent run reads none: its request lists the board it works on.
 */
export function boardToRead(input: RunInput, repositoryBoard: BoardPolicy | undefined): RunBoardRef | undefined {
  if (input.board?.writes) return undefined;
  if (repositoryBoard?.enabled) return { id: repositoryBoard.boardId, maxPromptChars: repositoryBoard.maxPromptChars };
  return input.board;
}

/**
 * Reads the board's kept entries into the run's system prompt once, before the first turn, as a
 * block marked as data (agents/board.ts `boardBlock`), bounded to the board's prompt bound and
 * carried from then on, so every request sends the same bytes and the prompt cache holds. A
 * board that cannot be read leaves the block out; it never fails the run.
 */
export async function readRunBoard(state: RunState, ref: RunBoardRef, boards: Pick<BoardActivityTypes, 'readBoard'>): Promise<void> {
  let read: Awaited<ReturnType<BoardActivityTypes['readBoard']>>;
  try {
    read = await boards.readBoard({ boardId: ref.id });
  } catch (error) {
    if (isCancellation(error)) throw error;
    return;
  }
  const built = boardBlock(ref.id, read.entries, ref.maxPromptChars ?? BOARD_DEFAULTS.maxPromptChars);
  state.board = {
    id: ref.id,
    entries: read.entries.filter((entry) => entry.state === 'kept').length,
    shown: built?.shown ?? [],
    ...(built ? { block: built.block } : {}),
  };
}
