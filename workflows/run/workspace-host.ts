import { isCancellation } from '@temporalio/workflow';
import type { WorkspaceRef } from '../contracts/sandbox';
import type { InstructionsActivities, McpActivities, SandboxActivities, WorkspacePrepareActivities } from '../activity-proxies';
import { failure } from '../contracts';
import type { ExecutorActivities } from './executors/context';
import { hostLostBy, timeoutOf } from './host-loss';

/** The `patched()` id of routing a run's workspace calls to its host's queue (docs/versioning.md). */
export const HOST_QUEUES_PATCH = 'workspace-calls-on-host-queue';

/** The activities that use the workspace's files or processes, on one queue. */
export type HostedActivities = Pick<ExecutorActivities, 'shell' | 'files' | 'skills' | 'attach'> & {
  workspaces: Pick<SandboxActivities, 'closeWorkspace'>;
  /** The repository's instructions, read in the checkout's sandbox when given a workspace (absent in tests that read none). */
  instructions?: InstructionsActivities;
  /** MCP calls: on the host when they name the workspace (a stdio server runs in its sandbox), else on the shared queue. */
  mcp: McpActivities;
};

export interface WorkspaceHostDeps {
  workspace: WorkspaceRef;
  /** False when replaying a history from before host queues: every call goes to the shared queue, as recorded. */
  routed: boolean;
  /** The host already known: the parent's (a role child), the unit's checkout, or the carry's. */
  hostQueue?: string;
  /** The proxies on the shared queue. */
  shared: HostedActivities;
  /** `prepareWorkspace` on the shared queue: the live worker that takes it becomes the host. */
  prepare: WorkspacePrepareActivities;
  /** The proxies on one host's queue, and a probe of that host. */
  onHost(queue: string): HostedActivities & { probe: WorkspacePrepareActivities };
}

/**
 * Where a run's workspace lives. The workspace is prepared through the shared queue before
 * its first use, and every later call goes to the queue of the host that prepared it. When
 * that host is gone (a call not picked up within the schedule-to-start bound, or a heartbeat
 * lost and the host not answering a probe), a fresh workspace is prepared through the shared
 * queue and the call answers the model with what was lost; the run never carries on in an
 * empty workspace without being told. Plain class: unit tests hand in fakes.
 */
export class WorkspaceHost {
  queue?: string;
  /** How often the workspace was lost, and the notice of the last loss. */
  losses = 0;
  notice?: string;
  readonly activities: HostedActivities;
  private unrouted = false;
  private preparing?: Promise<void>;
  private readonly replacements = new Map<string, Promise<void>>();

  constructor(private readonly deps: WorkspaceHostDeps) {
    this.queue = deps.hostQueue;
    const inWorkspace = <I extends { workspace?: WorkspaceRef }, T>(input: I, use: (on: HostedActivities) => Promise<T>) =>
      input.workspace ? this.call(use) : use(deps.shared);
    this.activities = {
      shell: { bash: (input) => this.call((on) => on.shell.bash(input)) },
      files: {
        readFile: (input) => this.call((on) => on.files.readFile(input)),
        writeFile: (input) => this.call((on) => on.files.writeFile(input)),
        jobStatus: (input) => this.call((on) => on.files.jobStatus(input)),
      },
      skills: {
        listSkills: (input) => inWorkspace(input, (on) => on.skills.listSkills(input)),
        useSkill: (input) => inWorkspace(input, (on) => on.skills.useSkill(input)),
      },
      attach: { attachFile: (input) => this.call((on) => on.attach.attachFile(input)) },
      workspaces: { closeWorkspace: (input) => this.call((on) => on.workspaces.closeWorkspace(input)) },
      instructions: {
        loadInstructions: (input) =>
          inWorkspace(input, (on) => {
            if (!on.instructions) throw new Error('no instructions activity on this queue');
            return on.instructions.loadInstructions(input);
          }),
      },
      mcp: {
        mcpDiscover: (input) => inWorkspace(input, (on) => on.mcp.mcpDiscover(input)),
        mcpCall: (input) => inWorkspace(input, (on) => on.mcp.mcpCall(input)),
        mcpClose: (input) => inWorkspace(input, (on) => on.mcp.mcpClose(input)),
      },
    };
  }

  /** The host's queue, preparing the workspace first if this run has not yet; undefined when calls go to the shared queue. */
  async ensure(): Promise<string | undefined> {
    if (!this.deps.routed || this.queue || this.unrouted) return this.queue;
    this.preparing ??= this.prepareFresh().finally(() => (this.preparing = undefined));
    await this.preparing;
    return this.queue;
  }

  /**
   * Takes the host of a checkout made in this run's workspace by another activity (a direct
   * review or coding run's `prepareUnitWorkspace`), so the run's calls follow the files there.
   */
  adopt(queue: string | undefined): void {
    if (this.deps.routed && !this.queue && queue) this.queue = queue;
  }

  /** Ends the workspace's processes with the run, on its host; nothing to do when this run never had one. */
  async close(): Promise<void> {
    const input = { workspace: this.deps.workspace };
    if (!this.deps.routed) await this.deps.shared.workspaces.closeWorkspace(input);
    // A host that is gone took the workspace's processes with it: nothing to replace at the end.
    else if (this.queue) await this.deps.onHost(this.queue).workspaces.closeWorkspace(input);
  }

  private async call<T>(use: (on: HostedActivities) => Promise<T>): Promise<T> {
    const queue = await this.ensure();
    if (!queue) return use(this.deps.shared);
    try {
      return await use(this.deps.onHost(queue));
    } catch (error) {
      if (isCancellation(error) || !(await this.hostGone(queue, error))) throw error;
      await this.replace(queue, timeoutOf(error)?.timeoutType ?? 'timeout');
      throw failure('workspace_lost', this.notice!);
    }
  }

  private async prepareFresh(): Promise<void> {
    try {
      const state = await this.deps.prepare.prepareWorkspace({ workspace: this.deps.workspace });
      if (state.hostTaskQueue) this.queue = state.hostTaskQueue;
      else this.unrouted = true;
    } catch (error) {
      if (isCancellation(error)) throw error;
      // No sandbox on the worker that took it (isolation missing): the calls go to the shared
      // queue and answer as they always did (a refusal the model reads).
      this.unrouted = true;
    }
  }

  /** A schedule-to-start timeout says so; a lost heartbeat is confirmed by a probe (a worker restarted on the same disk answers it). */
  private async hostGone(queue: string, error: unknown): Promise<boolean> {
    const timeout = timeoutOf(error);
    if (!timeout) return false;
    if (hostLostBy(timeout)) return true;
    try {
      await this.deps.onHost(queue).probe.prepareWorkspace({ workspace: this.deps.workspace });
      return false;
    } catch (probeError) {
      if (isCancellation(probeError)) throw probeError;
      const probeTimeout = timeoutOf(probeError);
      return Boolean(probeTimeout && hostLostBy(probeTimeout));
    }
  }

  /** One replacement per lost host, however many calls were in flight on it. */
  private replace(lost: string, reason: string): Promise<void> {
    let pending = this.replacements.get(lost);
    if (!pending) {
      pending = (async () => {
        if (this.queue === lost) this.queue = undefined;
        await this.ensure();
        this.losses += 1;
        this.notice = lostNotice(lost, reason);
      })();
      this.replacements.set(lost, pending);
    }
    return pending;
  }
}

/** How the notice of a lost workspace begins. */
export const WORKSPACE_LOST = 'Your workspace was lost';

/** What the model is told, in the result of the call that found the host gone. */
export function lostNotice(lostQueue: string, reason: string): string {
  return (
    `${WORKSPACE_LOST}: the worker host that held it (${lostQueue}) stopped answering (${reason.toLowerCase().replace(/_/g, '-')} timeout). ` +
    'Everything in it is gone: files that were not committed and pushed, its /tmp, and every job still running there (do not wait for them). ' +
    'This call did not complete. A fresh, empty workspace was prepared on another worker: clone or recreate what you need before you go on.'
  );
}
