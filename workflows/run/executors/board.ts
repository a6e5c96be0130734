import type { BoardChange } from '../../contracts';
import { fail, failureMessage, ok } from './tool-result';
import { type ToolExecutor } from './context';

/**
 * `context_board`: a rem-agent run's change to the board it consolidates for, sent as the board's
 * validated update by an activity whose update id is the call's effect key (a retried call answers
 * the first result). The run acts for the person whose work it read: whether its changes are kept
 * or only proposed was decided by the admission before it started (RunInput.board.writes). What
 * the board refuses comes back to the model as data.
 */
export const contextBoard: ToolExecutor<'context_board'> = async (ctx, call, input) => {
  const board = ctx.state.input.board;
  if (!board?.writes || !ctx.activities.boards)
    return fail(call, 'This run consolidates for no team board, so context_board has nothing to change; nothing was written.');
  const key = ctx.effectKey(call);
  const actor = {
    kind: 'agent' as const,
    id: key.split('/context_board/')[0],
    keeps: board.writes.keeps,
    onBehalfOf: board.writes.onBehalfOf,
  };
  const change: BoardChange =
    input.action === 'add'
      ? { key, actor, action: 'add', kind: input.kind!, text: input.text! }
      : input.action === 'replace'
        ? { key, actor, action: 'replace', entryId: input.entry_id!, text: input.text!, ...(input.kind ? { kind: input.kind } : {}) }
        : input.action === 'confirm'
          ? { key, actor, action: 'confirm', entryId: input.entry_id! }
          : { key, actor, action: 'retire', entryId: input.entry_id!, ...(input.reason ? { reason: input.reason } : {}) };
  try {
    const outcome = await ctx.activities.boards.changeBoard({ boardId: board.id, change, updateId: key });
    if (!outcome.ok) return fail(call, `The board refused this change: ${outcome.refused}. Nothing was written.`);
    return ok(call, `${outcome.result.message} (${board.id}).`);
  } catch (error) {
    return fail(call, `The board could not be reached (${failureMessage(error)}); nothing is known to have been written.`);
  }
};
