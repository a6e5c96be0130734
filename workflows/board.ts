import {
  allHandlersFinished,
  condition,
  continueAsNew,
  ParentClosePolicy,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { localSetup, repoReads, status, trajectories } from './activity-proxies';
import { BoardBook, BoardRefusal, initialBook } from './board/board-book';
import { Consolidation } from './board/consolidation';
import {
  agentRunWorkflowType,
  boardChangeUpdate,
  boardQuery,
  consolidateSignal,
  failure,
  type BoardInput,
  type BoardWorkflow,
  type ConsolidationRequest,
} from './contracts';
import { currentDetails } from './details';
import { InputGuard } from './input-guard';
import { Repo, SwitchboardKind } from './search-attributes';

/** Consolidations waiting at most (the oldest give way: their work is older). */
export const BOARD_QUEUE_LIMIT = 20;
/** Continue-as-new between consolidations once history passes this many events (or Temporal suggests it). */
export const BOARD_HISTORY_LIMIT = 2_000;

/**
 * A team's memory for one repository or Slack channel (docs/board.md): an entity workflow that
 * holds the board's entries (workflows/board/board-book.ts), takes every change through its
 * validated `boardChange` update (shape, then the board's rules: a refused change never reaches
 * history), answers the `board` query, and runs one rem-agent at a time for the work its
 * `consolidate` signal names (workflows/board/consolidation.ts). It lives on, continuing-as-new
 * between consolidations, so the board survives everything a run survives and needs no store.
 */
export async function boardWorkflow(input: BoardInput): Promise<void> {
  const { boardId } = input;
  const book = new BoardBook(input.carry?.book ?? initialBook());
  const queue: ConsolidationRequest[] = input.carry?.queue ?? [];
  let remRuns = input.carry?.remRuns ?? 0;
  let consolidating: string | undefined;

  const guard = new InputGuard('boardWorkflow', () => showDetails());
  const showDetails = () => {
    const kept = book.state.entries.filter((entry) => entry.state === 'kept').length;
    const proposed = book.state.entries.filter((entry) => entry.state === 'proposed').length;
    setCurrentDetails(
      currentDetails({
        phase: consolidating ? 'consolidating' : 'idle',
        note: [`${kept} kept`, `${proposed} proposed`, `${queue.length} queued`, ...(consolidating ? [`run ${consolidating}`] : [])].join(
          ' · ',
        ),
        ...(guard.note() ? { dropped: guard.note() } : {}),
      }),
    );
  };
  setHandler(boardQuery, () =>
    book.view({
      boardId,
      ...(input.repo ? { repo: input.repo } : {}),
      queued: queue.length,
      ...(consolidating ? { consolidating } : {}),
      remRuns,
    }),
  );
  guard.update(
    boardChangeUpdate,
    (change) => {
      const result = book.apply(change, Date.now());
      showDetails();
      return result;
    },
    {
      code: 'board_change_refused',
      also: (change) => {
        try {
          book.check(change);
        } catch (error) {
          if (error instanceof BoardRefusal) throw failure('board_change_refused', error.message);
          throw error;
        }
      },
    },
  );
  guard.signal(consolidateSignal, (request) => {
    // The same work is consolidated once, however often it is asked for.
    if (!book.takeConsolidation(request.key)) return;
    queue.push(request);
    queue.splice(0, Math.max(0, queue.length - BOARD_QUEUE_LIMIT));
    showDetails();
  });

  upsertSearchAttributes([{ key: SwitchboardKind, value: 'board' }, ...(input.repo ? [{ key: Repo, value: input.repo }] : [])]);
  const consolidation = new Consolidation({
    input,
    book,
    loadSetup: () => localSetup.loadAgentSetup(),
    repoSettings: (read) => repoReads.repoSettings(read),
    readTrajectory: (read) => trajectories.readTrajectory(read),
    deliverReply: (reply) => status.deliverReply(reply),
    startRun: (workflowId, run, staticSummary) =>
      startChild(agentRunWorkflowType, { workflowId, args: [run], parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL, staticSummary }),
  });
  const longHistory = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > BOARD_HISTORY_LIMIT;

  for (;;) {
    showDetails();
    await condition(() => queue.length > 0 || longHistory());
    const request = queue.shift();
    if (request) {
      remRuns += 1;
      consolidating = `${boardId}/rem-${remRuns}`;
      showDetails();
      await consolidation.run(request, remRuns).catch(() => undefined);
      consolidating = undefined;
    }
    if (longHistory()) {
      await condition(allHandlersFinished);
      await continueAsNew<BoardWorkflow>({ ...input, carry: { book: book.state, queue, remRuns } });
    }
  }
}
