import type { WorkspaceRef } from '../contracts/sandbox';
import type { ExecutorActivities, ToolContext } from './executors';
import type { McpTools } from './mcp-tools';
import type { WorkflowClock } from './run-control';
import type { RunState } from './run-state';
import type { StatusCard } from './status-card';
import type { TaskChildren } from './task-children';
import type { WorkspaceHost } from './workspace-host';

export interface RunToolsDeps {
  runId: string;
  state: RunState;
  card: Pick<StatusCard, 'touch'>;
  clock: Pick<WorkflowClock, 'now'>;
  workspace: WorkspaceRef;
  /** The calls in the workspace go through its host (and its losses are told to the model). */
  host: Pick<WorkspaceHost, 'activities' | 'losses' | 'notice'>;
  children: Pick<TaskChildren, 'start' | 'wait'>;
  mcpTools?: McpTools;
  /** The activities that are not the workspace's. */
  activities: Pick<ExecutorActivities, 'githubReads' | 'githubWrites' | 'units' | 'setup' | 'web' | 'boards'>;
  sleep: ToolContext['sleep'];
  signal: ToolContext['signal'];
  patched: (id: string) => boolean;
}

/** What the run's tool calls execute with (executors/context.ts): its state, workspace, activities, children and clock. */
export function runToolContext(deps: RunToolsDeps): ToolContext {
  const { runId, state, card, host, children } = deps;
  return {
    state,
    workspace: deps.workspace,
    activities: { ...host.activities, ...deps.activities },
    workspaceLoss: () => ({ losses: host.losses, ...(host.notice ? { notice: host.notice } : {}) }),
    touchCard: () => card.touch(),
    remainingMs: () => state.remainingMs(deps.clock.now()),
    runTask: (call, args) => children.start(call, args),
    waitForTask: (call, jobId) => children.wait(call, jobId),
    sleep: deps.sleep,
    signal: deps.signal,
    effectKey: (call) => `${runId}/${call.name}/${state.turns}.${callIndex(state, call)}`,
    patched: deps.patched,
    ...(deps.mcpTools ? { mcp: deps.mcpTools } : {}),
  };
}

/** Where a call stands among the tool calls of the run's last model turn (-1: not among them). */
export function callIndex(state: Pick<RunState, 'messages'>, call: { id: string }): number {
  const last = state.messages[state.messages.length - 1];
  return last?.role === 'assistant' ? last.toolCalls.findIndex((candidate) => candidate.id === call.id) : -1;
}
