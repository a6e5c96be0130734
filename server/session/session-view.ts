import {
  agentRunWorkflowType,
  shipUnitWorkflowType,
  threadWorkflowType,
  type RunStatus,
  type ThreadState,
  type UnitState,
} from '../../workflows/contracts';
import type { Execution } from '../../infra/history/events';
import { buildRunSession, type RunSession } from './model/run-session';
import { buildThreadSession } from './model/thread-session';
import { buildUnitSession, type UnitSession } from './model/unit-session';
import { renderDiff } from './render/diff-view';
import type { Block, PageParts, RenderContext } from './render/parts';
import { renderRun } from './render/run-view';
import { renderThread } from './render/thread-view';
import { renderUnit } from './render/unit-view';

/** The workflow types that have a session page. */
export const PAGE_TYPES = new Set([agentRunWorkflowType.name, shipUnitWorkflowType.name, threadWorkflowType.name]);

export type LiveState = RunStatus | UnitState | ThreadState;

export interface SessionInput {
  workflowId: string;
  type: string;
  executions: readonly Execution[];
  /** Executions of a long continue-as-new chain that were not read. */
  omitted: number;
  /** The open workflow's query answer (`status` or `state`). */
  live?: LiveState;
  /** For a unit's coding run: its unit's session, where the diff after the run is. */
  unit?: UnitSession;
}

/** History (and the live query) to a page's parts: the model, then its view. Pure. */
export function renderSession(input: SessionInput, context: RenderContext): PageParts {
  const { workflowId, executions } = input;
  if (input.type === agentRunWorkflowType.name) {
    const session = buildRunSession(workflowId, executions, {
      ...(input.live ? { status: input.live as RunStatus } : {}),
      omitted: input.omitted,
    });
    return renderRun(session, context, roundDiff(session, input.unit, context));
  }
  if (input.type === shipUnitWorkflowType.name) {
    return renderUnit(
      buildUnitSession(workflowId, executions, { ...(input.live ? { state: input.live as UnitState } : {}), now: context.now }),
      context,
    );
  }
  return renderThread(buildThreadSession(workflowId, executions, input.live ? { state: input.live as ThreadState } : {}), context);
}

/** The unit a coding run belongs to (`<unit id>/coding-<round>-<n>`), whose history holds the diff after it. */
export function unitOfCodingRun(workflowId: string): string | undefined {
  const match = /^(unit:.+)\/coding-\d+-\d+$/.exec(workflowId);
  return match?.[1];
}

/**
 * A unit's coding run's changes: the diff the unit's next review read, at the head this run's
 * round committed (the unit commits and pushes after the run, and a review reads the PR's diff).
 */
function roundDiff(run: RunSession, unit: UnitSession | undefined, context: RenderContext): Block | undefined {
  if (!unit) return undefined;
  const round = unit.rounds.find((candidate) =>
    candidate.items.some((item) => item.kind === 'run' && item.child.workflowId === run.workflowId),
  );
  const commit = round?.items.find((item) => item.kind === 'commit');
  const head = commit?.kind === 'commit' ? commit.result?.headSha : undefined;
  const diff = head ? unit.diffs.find((candidate) => candidate.headSha === head) : undefined;
  return diff ? renderDiff(diff, context, 'diff-files') : undefined;
}
