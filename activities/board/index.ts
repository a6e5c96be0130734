import { type Client } from '@temporalio/client';
import { changeBoard, queryBoard, requestConsolidation, type BoardChangeOutcome } from '../../infra/board-client';
import type { Execution } from '../../infra/history/events';
import { continuedFrom, HistoryReader } from '../../infra/history/reader';
import type { BoardChange, BoardEntry, ConsolidationRequest } from '../../workflows/contracts';
import { boundTrajectory, kindOf, trajectoryOf, type TrajectoryPart } from './trajectory';

export interface BoardActivityDeps {
  client: Client;
  taskQueue: string;
}

/** How many executions of one workflow (a continue-as-new chain) a trajectory reads, newest last. */
const EXECUTIONS_READ = 3;
/** How many of a unit's or a thread's runs a trajectory reads (the latest). */
const CHILD_RUNS_READ = 8;

export interface ReadTrajectoryInput {
  /** Workflow ids: runs, units (their runs with them), threads (their runs). */
  sources: string[];
  maxChars: number;
}

export interface Trajectory {
  text: string;
  /** The workflows read, and those that could not be (not found, or their history unreadable). */
  read: string[];
  missing: string[];
}

/**
 * The team board's activities (docs/board.md): a run reads its board's entries; rem-agent's
 * `context_board` changes it (the update's id is the call's effect key, so a retry answers the
 * first result); a thread or a unit asks for a consolidation; a board reads the trajectory of the
 * work it consolidates, through the same history reader as the session pages.
 */
export function createBoardActivities(deps: BoardActivityDeps) {
  const reader = new HistoryReader(deps.client);

  async function executions(workflowId: string): Promise<{ type: string; executions: Execution[] } | undefined> {
    let facts;
    try {
      facts = await reader.describe(workflowId);
    } catch {
      return undefined;
    }
    const chain: Execution[] = [];
    let runId: string | undefined = facts.runId;
    while (runId && chain.length < EXECUTIONS_READ) {
      const execution = await reader.execution(workflowId, runId);
      chain.unshift(execution);
      runId = continuedFrom(execution);
    }
    return { type: facts.type, executions: chain };
  }

  return {
    async readBoard(input: { boardId: string }): Promise<{ found: boolean; entries: BoardEntry[] }> {
      const state = await queryBoard(deps.client, input.boardId);
      return { found: state !== undefined, entries: (state?.entries ?? []).filter((entry) => entry.state !== 'retired') };
    },

    async changeBoard(input: { boardId: string; change: BoardChange; updateId: string }): Promise<BoardChangeOutcome> {
      return changeBoard(deps.client, deps.taskQueue, input.boardId, input.change, input.updateId);
    },

    async requestConsolidation(input: { boardId: string; request: ConsolidationRequest }): Promise<void> {
      await requestConsolidation(deps.client, deps.taskQueue, input.boardId, input.request);
    },

    async readTrajectory(input: ReadTrajectoryInput): Promise<Trajectory> {
      const parts: TrajectoryPart[] = [];
      const read: string[] = [];
      const missing: string[] = [];
      const visit = async (workflowId: string, depth: number) => {
        if (read.includes(workflowId)) return;
        const found = await executions(workflowId);
        if (!found) {
          missing.push(workflowId);
          return;
        }
        read.push(workflowId);
        const part = trajectoryOf(workflowId, found.type, found.executions);
        parts.push(part);
        // A unit's or a thread's runs are its work; a run's task children speak through its own turns.
        if (depth === 0 && kindOf(found.type) !== 'run')
          for (const child of part.children.filter((id) => id.startsWith('run:') || id.startsWith('unit:')).slice(-CHILD_RUNS_READ))
            await visit(child, depth + 1);
      };
      for (const source of input.sources) await visit(source, 0);
      return { text: boundTrajectory(parts, input.maxChars), read, missing };
    },
  };
}

export type BoardActivities = ReturnType<typeof createBoardActivities>;
