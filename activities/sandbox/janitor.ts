import { type SandboxHost, type SandboxLogger } from './sandbox-host';
import { recordedKeysUnder } from './workspace-layout';

/** Whether a workflow that used a sandbox still runs: `unknown` when Temporal has no such workflow (yet, or any more). */
export type WorkflowLiveness = (workflowId: string) => Promise<'running' | 'closed' | 'unknown'>;

/**
 * A thread or unit that ended without ending itself (terminated, timed out): its id is its
 * workspace's key, and it never released that workspace.
 */
export interface EndedOwner {
  workflowId: string;
  kind: 'thread' | 'unit';
  runId: string;
  status: 'terminated' | 'timedOut';
  /** Why, as the operator said (a terminate's reason). */
  reason?: string;
  repo?: string;
  pullRequest?: number;
}

export interface JanitorOptions {
  host: SandboxHost;
  liveness: WorkflowLiveness;
  logger?: SandboxLogger;
  /** How often this host looks (default one minute). */
  intervalMs?: number;
  /** How long a sandbox whose workflows Temporal does not know may live (default ten minutes). */
  unknownGraceMs?: number;
  now?: () => number;
  /** Threads and units that ended without ending themselves lately: their workspaces' files are released here. */
  endedOwners?: () => Promise<EndedOwner[]>;
  /** Told after this host released such a workspace (a unit's pull request hears it was ended). */
  released?: (owner: EndedOwner) => Promise<void>;
}

/**
 * Ends the sandboxes of workflows that are over however they ended. A run closes its workspace
 * when it ends, but a terminated workflow (an operator's `temporal workflow terminate`, a
 * timeout, a reset away from the run, a deleted namespace) runs no more code: its holder, its
 * detached jobs and its door would live until the workspace is released. Each worker host looks
 * at the holders under its data dir: a holder all of whose workflows are closed is closed (its
 * files stay); one whose workflows Temporal does not know, for longer than the grace period, too.
 */
export class WorkspaceJanitor {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  /** When each holder was first seen with no workflow Temporal knows. */
  private readonly unknownSince = new Map<string, number>();

  constructor(private readonly options: JanitorOptions) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep().catch(() => undefined), this.options.intervalMs ?? 60_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** One look at every live holder of this host; answers the workspaces it closed. */
  async sweep(): Promise<string[]> {
    if (this.running) return [];
    const work = this.sweepNow();
    this.running = work;
    try {
      return await work;
    } finally {
      this.running = undefined;
    }
  }

  private async sweepNow(): Promise<string[]> {
    const { host, liveness, logger } = this.options;
    const now = (this.options.now ?? Date.now)();
    const closed: string[] = [];
    const seen = new Set<string>();
    for (const { name, holder } of await host.liveHolders()) {
      seen.add(name);
      const states = await Promise.all((holder.owners ?? []).map((owner) => liveness(owner).catch(() => 'running' as const)));
      if (states.includes('running')) {
        this.unknownSince.delete(name);
        continue;
      }
      const allClosed = states.length > 0 && states.every((state) => state === 'closed');
      if (!allClosed) {
        const since = this.unknownSince.get(name) ?? now;
        this.unknownSince.set(name, since);
        if (now - since < (this.options.unknownGraceMs ?? 600_000)) continue;
      }
      await host.closeByName(name);
      this.unknownSince.delete(name);
      closed.push(name);
      logger?.warn(
        { component: 'sandbox', workspace: name, owners: holder.owners ?? [] },
        allClosed
          ? 'ended the sandbox of workflows that are closed (terminated, timed out or reset away): its processes and door are gone, its files stay'
          : 'ended a sandbox no running workflow owns',
      );
    }
    for (const name of this.unknownSince.keys()) if (!seen.has(name)) this.unknownSince.delete(name);
    return [...closed, ...(await this.releaseEnded())];
  }

  /**
   * The files of threads and units that were terminated (or timed out) never go on their own:
   * every workspace on this host keyed by the id or under it (a unit's checkout and its review's
   * `<id>/review`, the workspaces of agent children started under it) is released (its holder
   * ended, its folder removed) once no workflow on the way to it runs any more (a reset runs it
   * again: kept), and `released` is told once.
   */
  private async releaseEnded(): Promise<string[]> {
    const { host, logger, endedOwners, released } = this.options;
    if (!endedOwners) return [];
    const done: string[] = [];
    for (const owner of await endedOwners()) {
      const id = owner.workflowId;
      // A checkout made before keys were recorded is found by the names a unit gives it.
      const keys = new Set([id, `${id}/review`, ...(await recordedKeysUnder(host.dataDir, id))]);
      const gone: string[] = [];
      for (const key of keys) {
        const workspace = { key, network: true };
        if (!(await host.hasFiles(workspace)) || (await this.anyRunning(id, key))) continue;
        await host.release(workspace);
        gone.push(key);
      }
      if (gone.length === 0) continue;
      done.push(id);
      logger?.warn(
        { component: 'sandbox', workflowId: id, status: owner.status, workspaces: gone },
        `released the workspaces of a ${owner.kind} that was ${owner.status === 'terminated' ? 'terminated' : 'timed out'}: their files are gone`,
      );
      await released?.(owner).catch((error: Error) =>
        logger?.warn({ component: 'sandbox', workflowId: id, error: error.message }, 'could not say it was ended'),
      );
    }
    return done;
  }

  /** Whether the ended id, or any workflow id between it and `key` (`<id>/a`, `<id>/a/b`, …), runs now. */
  private async anyRunning(id: string, key: string): Promise<boolean> {
    const parts = key.slice(id.length).split('/').filter(Boolean);
    const ids = [id, ...parts.map((_, at) => [id, ...parts.slice(0, at + 1)].join('/'))];
    for (const each of ids) if ((await this.options.liveness(each).catch(() => 'running' as const)) === 'running') return true;
    return false;
  }
}
