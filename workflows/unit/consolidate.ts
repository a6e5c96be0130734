import type { BoardPolicy } from '../../agents';
import type { BoardActivityTypes } from '../activity-proxies';
import type { ShipUnitInput, UnitRecord } from '../contracts';

/** The `patched()` id of a unit that, once settled, asks its repository's board to consolidate it (docs/board.md). */
export const UNIT_SETTLE_CONSOLIDATES = 'unit-settle-consolidates';

/**
 * A settled unit on a repository whose board consolidates units (`board.consolidate: [units]`, the
 * default once the board is on) asks the board for rem-agent over its work: its runs, the reviews
 * it posted, what people said. A unit that never got going (failed at once, no round) has nothing
 * to teach. The board re-checks its settings and the admission before it runs anything.
 */
export async function consolidateUnit(
  board: BoardPolicy | undefined,
  input: ShipUnitInput,
  record: UnitRecord,
  deps: { boards: Pick<BoardActivityTypes, 'requestConsolidation'>; patched(id: string): boolean },
): Promise<void> {
  if (!board?.enabled || !board.consolidate.includes('units') || record.rounds === 0) return;
  if (!deps.patched(UNIT_SETTLE_CONSOLIDATES)) return;
  await deps.boards
    .requestConsolidation({
      boardId: board.boardId,
      request: {
        key: `${input.unitId}/consolidate`,
        trigger: 'unit',
        sources: [input.unitId],
        requester: input.requester,
        replyTarget: input.replyTarget,
        ...(input.threadId ? { threadId: input.threadId } : {}),
      },
    })
    .catch(() => undefined);
}
