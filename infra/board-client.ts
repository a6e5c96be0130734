import { WithStartWorkflowOperation, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { boardTarget } from '../agents/board';
import {
  boardChangeUpdate,
  boardQuery,
  boardWorkflowType,
  consolidateSignal,
  type BoardChange,
  type BoardChangeResult,
  type BoardInput,
  type BoardState,
  type ConsolidationRequest,
} from '../workflows/contracts';

/**
 * Talking to team boards from outside a workflow (docs/board.md): what the board activities and
 * the CLI share. A board is started by the first change or consolidation that reaches it
 * (update-with-start, signal-with-start) and lives on; it is read with its `board` query.
 */

/** A board's input, from its id (`board:<owner>/<repo>` or `board:slack:<team>:<channel>`). */
export function boardInput(boardId: string): BoardInput {
  const target = boardTarget(boardId);
  if (!target) throw new Error(`"${boardId}" is not a board id (board:<owner>/<repo> or board:slack:<team>:<channel>)`);
  return { boardId, ...target };
}

function startOptions(boardId: string, taskQueue: string) {
  const input = boardInput(boardId);
  return {
    workflowId: boardId,
    taskQueue,
    args: [input] as [BoardInput],
    staticSummary: `team board of ${'repo' in input ? input.repo : `Slack channel ${input.slack?.channel}`}`,
  };
}

/** The board's state, or undefined when no board was ever started under that id. */
export async function queryBoard(client: Client, boardId: string): Promise<BoardState | undefined> {
  try {
    return await client.workflow.getHandle(boardId).query(boardQuery);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

export type BoardChangeOutcome = { ok: true; result: BoardChangeResult } | { ok: false; refused: string };

/**
 * One change, starting the board if it is new. `updateId` makes a retried call answer the first
 * call's result (the board also remembers the change's key across continue-as-new). A change the
 * board refuses comes back as `refused` with its reason; anything else is thrown.
 */
export async function changeBoard(
  client: Client,
  taskQueue: string,
  boardId: string,
  change: BoardChange,
  updateId?: string,
): Promise<BoardChangeOutcome> {
  try {
    const result = await client.workflow.executeUpdateWithStart(boardChangeUpdate, {
      args: [change],
      ...(updateId ? { updateId } : {}),
      startWorkflowOperation: new WithStartWorkflowOperation(boardWorkflowType, {
        ...startOptions(boardId, taskQueue),
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });
    return { ok: true, result };
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      const cause = error.cause as { message?: string } | undefined;
      return { ok: false, refused: cause?.message ?? error.message };
    }
    throw error;
  }
}

/** Asks a board for a rem-agent run over some finished work (starting the board if it is new). */
export async function requestConsolidation(
  client: Client,
  taskQueue: string,
  boardId: string,
  request: ConsolidationRequest,
): Promise<void> {
  await client.workflow.signalWithStart(boardWorkflowType, {
    ...startOptions(boardId, taskQueue),
    signal: consolidateSignal,
    signalArgs: [request],
  });
}
