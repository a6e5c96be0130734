import type { WorkspaceRef } from '../contracts/sandbox';
import type * as Proxies from '../activity-proxies';
import type { GitHubWriteActivities } from '../activity-proxies';
import type { RunCarry, RunInput, RunRecord } from '../contracts';
import { commandReport } from './command-report';
import { directActivities, type DirectProxies } from './direct-activities';
import { DirectWork, directMode } from './direct-work';
import type { ToolContext } from './executors';
import { McpTools } from './mcp-tools';
import { closeOwnWorkspace, workspaceKeyFor } from './own-workspace';
import type { RunControl, WorkflowClock } from './run-control';
import type { RunState } from './run-state';
import type { StatusCard } from './status-card';
import { runToolContext } from './run-tools';
import { TaskChildren, type TaskChildrenDeps } from './task-children';
import { HOST_QUEUES_PATCH, WorkspaceHost } from './workspace-host';

/** The proxies a run's parts call (the workflow's; fakes in tests). */
export type RunProxies = DirectProxies &
  Pick<typeof Proxies, 'shell' | 'files' | 'skills' | 'attach' | 'workspaces' | 'mcp' | 'repoReads' | 'workspacePrepare' | 'repoVetting'> &
  Pick<typeof Proxies, 'githubToolReads' | 'units' | 'web' | 'boards'>;

export interface RunPartsDeps {
  runId: string;
  input: RunInput;
  state: RunState;
  control: RunControl;
  clock: WorkflowClock;
  card: Pick<StatusCard, 'touch'>;
  proxies: RunProxies;
  /** The GitHub writes the run's tools make (run-writes.ts runGitHubWrites). */
  githubWrites: GitHubWriteActivities;
  /** `patched`, `sleep`, a signal to another workflow and a child start, from the SDK (fakes in tests). */
  patched: (id: string) => boolean;
  sleep: ToolContext['sleep'];
  signal: ToolContext['signal'];
  startRun: TaskChildrenDeps['startRun'];
  /** `CancellationScope.nonCancellable`: the run's cleanup runs even when it is being stopped. */
  nonCancellable: <T>(work: () => Promise<T>) => Promise<T>;
}

/**
 * What a run works with, made once when it starts: its workspace's host, its MCP servers'
 * tools, its task children, the context its tools run in, and a direct run's own work. The
 * workflow hands in the SDK's functions and the proxies; tests hand in fakes.
 */
export class RunParts {
  /** The workspace the run works in (own-workspace.ts workspaceKeyFor). */
  readonly workspace: WorkspaceRef;
  readonly host: WorkspaceHost;
  /** The MCP servers the admission let this run use: their tools are discovered once, before the first turn. */
  readonly mcpTools?: McpTools;
  readonly children: TaskChildren;
  readonly tools: ToolContext;
  /** A direct review or coding run checks out its PR or branch and delivers its own submission. */
  readonly direct?: DirectWork;

  constructor(private readonly deps: RunPartsDeps) {
    const { runId, input, state, proxies: p } = deps;
    const workspace = { key: workspaceKeyFor(input, runId), network: input.profile.machine !== 'none' };
    this.workspace = workspace;
    // The workspace lives on one host: its calls go to that host's queue (histories from before
    // host queues replay on the shared queue, as they were recorded).
    this.host = new WorkspaceHost({
      workspace,
      routed: deps.patched(HOST_QUEUES_PATCH),
      ...((input.carry?.workspaceHost ?? input.workspaceHost) ? { hostQueue: input.carry?.workspaceHost ?? input.workspaceHost } : {}),
      shared: {
        shell: p.shell,
        files: p.files,
        skills: p.skills,
        attach: p.attach,
        workspaces: p.workspaces,
        mcp: p.mcp,
        instructions: p.repoReads,
      },
      prepare: p.workspacePrepare,
      onHost: p.hostBound,
    });
    if (input.profile.mcp?.servers.length) this.mcpTools = new McpTools({ runId, state, workspace, activities: this.host.activities.mcp });
    this.children = this.taskChildren();
    const { githubToolReads: githubReads, units, setup, web, boards } = p;
    this.tools = runToolContext({
      ...deps,
      workspace,
      host: this.host,
      children: this.children,
      ...(this.mcpTools ? { mcpTools: this.mcpTools } : {}),
      activities: { githubReads, githubWrites: deps.githubWrites, units, setup, web, boards },
    });
    const mode = directMode(input);
    if (mode && deps.patched('direct-review-and-coding')) {
      const activities = directActivities(this.host, p, deps.githubWrites, deps.patched);
      this.direct = new DirectWork({ runId, state, workspaceKey: workspace.key, mode, activities });
      this.tools.direct = this.direct;
    }
  }

  /**
   * The run's answer, settled once its loop has ended: a direct run's says what it delivered; a
   * command runner's is decided by code (one line on success, the whole output on failure).
   */
  settleAnswer(): void {
    const { state } = this.deps;
    if (this.direct) state.finalText = this.direct.answer(state.finalText);
    if (state.input.profile.result === 'command') state.finalText = commandReport(state.messages, state.finalText);
  }

  /** The input of the next execution when the run continues as new: the carry, and the host its workspace is on. */
  continued(carry: RunCarry): RunInput {
    return { ...this.deps.input, carry: { ...carry, ...(this.host.queue ? { workspaceHost: this.host.queue } : {}) } };
  }

  /** Ends the run's own processes in its workspace (own-workspace.ts); the promise is closeOwnWorkspace's own. */
  closeWorkspace(): Promise<void> {
    const { input, proxies: p } = this.deps;
    const { workspace } = this;
    return closeOwnWorkspace({
      input,
      patched: this.deps.patched,
      release: () => (this.host.queue ? p.hostBound(this.host.queue).unitWorkspace : p.unitWorkspace).releaseWorkspace({ workspace }),
      close: () => this.host.close(),
      nonCancellable: this.deps.nonCancellable,
    });
  }

  /** The run's result: its record, and where its workspace was and how often it was lost. */
  record(now: number): RunRecord {
    const { host } = this;
    return {
      ...this.deps.state.record(this.deps.runId, now),
      ...(host.queue ? { workspaceHost: host.queue } : {}),
      ...(host.losses > 0 ? { workspaceLosses: host.losses } : {}),
    };
  }

  private taskChildren(): TaskChildren {
    const { runId, state, control, clock, proxies: p } = this.deps;
    return new TaskChildren({
      runId,
      state,
      control,
      clock,
      setup: p.setup,
      workspaceKey: this.workspace.key,
      workspaceHost: () => this.host.ensure(),
      vet: (request) => p.repoVetting.vetRepository(request),
      patched: this.deps.patched,
      startRun: this.deps.startRun,
    });
  }
}
