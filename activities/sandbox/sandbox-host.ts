import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { sandboxBounds } from './bounds';
import { WorkspaceCgroup } from './cgroups';
import { entryArgv, shellArgs } from './entry-argv';
import { addOwner, liveHolder, processStartTime, stopHolder, untilEnded, type HolderRecord } from './holder';
import { launchHolder } from './holder-launch';
import { NO_HOLDER_SETUP, type HolderSetupProvider } from './holder-binds';
import {
  detectIsolationOnce,
  installed,
  readinessOf,
  type IsolationCheck,
  type IsolationSetting,
  type SandboxReadiness,
} from './isolation';
import { DEFAULT_LIMITS, type SandboxLimits } from './limits';
import { Door, type DoorLogger } from './network/door';
import { type Resolver } from './network/door-grant';
import { DOOR_PORT, listenInNamespace, listenOnHost } from './network/open-door';
import { type PushPolicy } from './network/receive-pack';
import { LEGACY_UID_RANGE, processesOf, SandboxUids, uidRangeFor, type UidRange } from './sandbox-uids';
import { seccompFilter } from './seccomp';
import { killMarkedProcesses } from './process-group';
import { sweepMounts, WorkspaceDisk } from './workspace-disk';
import {
  SANDBOX_VIEW,
  ensureStateFolders,
  ensureUnisolatedFolders,
  layoutByName,
  recordKey,
  workspaceLayout,
  type WorkspaceLayout,
} from './workspace-layout';
import { type WorkspaceRef } from '../../workflows/contracts/sandbox';
import { type SandboxTarget } from './sandbox-target';

export type { SandboxTarget } from './sandbox-target';

/** What the sandbox logs through; the project's pino logger fits. */
export interface SandboxLogger extends DoorLogger {
  error(details: object, message: string): void;
}

/** A workspace ready for a call: its sandbox running and its network door open. */
export interface PreparedWorkspace extends SandboxTarget {
  door: Door;
}

export interface SandboxHostOptions {
  dataDir: string;
  isolation: IsolationSetting;
  logger?: SandboxLogger;
  hiddenPaths?: readonly string[];
  gitBaseUrl: string;
  identityToken?: (scope: 'read' | 'write') => Promise<string | undefined>;
  /** How the machine is probed; the real probe unless a test or the doctor says otherwise. */
  probe?: () => Promise<IsolationCheck>;
  resolver?: Resolver;
  limits?: Partial<SandboxLimits>;
  uids?: UidRange;
  /** What a holder starts with beyond the defaults (a repository cache's binds); asked at each start. */
  holderSetup?: HolderSetupProvider;
  /** The rules the door judges pushes by (the defaults when absent). */
  pushPolicy?: PushPolicy;
}

/** Thrown by prepare when commands may not run here; the activities turn it into a refusal. */
export class SandboxUnavailable extends Error {
  constructor(readonly readiness: SandboxReadiness) {
    super(`shell commands are refused: this worker cannot isolate them (${readiness.reason}). Fix: ${readiness.fix}`);
  }
}

/**
 * The workspaces of one worker: decides the isolation once, gives each workspace its uid,
 * cgroups, disk and holder, opens its network door (one at a time per workspace, so two
 * concurrent calls never start two), and builds the argv that runs a program inside it.
 */
export class SandboxHost {
  private isolation?: Promise<IsolationCheck>;
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly doors = new Map<string, Door>();
  readonly limits: SandboxLimits;
  private readonly uids: SandboxUids;
  private readonly uidRange: UidRange;
  private filterHex?: string;
  private holderSetup?: HolderSetupProvider;
  private swept = 0;

  constructor(private readonly options: SandboxHostOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    // A range of its own per deployment (the configured one, else one derived from the data dir);
    // workspaces made when every deployment shared the legacy range keep their uids.
    const { range, configured } = uidRangeFor(options.dataDir, options.uids);
    this.uidRange = range;
    this.uids = new SandboxUids(join(options.dataDir, 'sandbox-uids'), range, configured ? [] : [LEGACY_UID_RANGE]);
    this.holderSetup = options.holderSetup;
  }

  /** Sets what holders start with beyond the defaults (the repository cache registers itself here). */
  setHolderSetup(provider: HolderSetupProvider): void {
    this.holderSetup = provider;
  }

  get dataDir(): string {
    return this.options.dataDir;
  }

  isolationCheck(): Promise<IsolationCheck> {
    this.isolation ??= this.decide();
    return this.isolation;
  }

  async readiness(): Promise<SandboxReadiness> {
    const check = await this.isolationCheck();
    const readiness = readinessOf(this.options.isolation, check);
    return readiness.mode === 'bwrap' ? { ...readiness, bounds: sandboxBounds(check, this.limits, this.uidRange) } : readiness;
  }

  private async decide(): Promise<IsolationCheck> {
    const { logger } = this.options;
    if (this.options.isolation === 'unisolated-unsafe') {
      logger?.error(
        { component: 'sandbox', setting: 'sandbox.isolation=unisolated-unsafe' },
        'SANDBOX ISOLATION IS OFF BY CONFIGURATION: model-written commands run on this host with the worker’s rights and can read its secrets. Use this for local development only.',
      );
      return { mode: 'none', setpriv: await installed('setpriv'), reason: 'isolation is off in the configuration (unisolated-unsafe)' };
    }
    const check = await (this.options.probe ?? detectIsolationOnce)();
    if (check.mode === 'bwrap') {
      logger?.info(
        { component: 'sandbox', cgroups: check.cgroups?.version, diskImages: check.diskImages, seccomp: check.seccomp },
        'sandbox commands are isolated with bubblewrap, each workspace as an unprivileged uid of its own',
      );
      await sweepMounts().catch(() => undefined);
    } else
      logger?.error(
        { component: 'sandbox', reason: check.reason },
        `bubblewrap is unavailable, so shell agents are refused until it is fixed: ${readinessOf('bwrap', check).fix}`,
      );
    return check;
  }

  /** Runs `work` after any earlier work on the same workspace has finished. */
  private serial<T>(name: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(name) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.queues.set(name, next);
    void next.finally(() => this.queues.get(name) === next && this.queues.delete(name)).catch(() => undefined);
    return next;
  }

  /**
   * The workspace ready for a call: its holder running (started when needed) and its door
   * open. `owner` is the workflow the call works for, which the janitor checks before it ends
   * an abandoned sandbox.
   */
  async prepare(workspace: WorkspaceRef, owner?: string): Promise<PreparedWorkspace> {
    const prepared = await this.prepareByName(workspaceLayout(this.options.dataDir, workspace).name, owner);
    await recordKey(prepared.layout, workspace.key);
    return prepared;
  }

  async prepareByName(name: string, owner?: string): Promise<PreparedWorkspace> {
    const isolation = await this.isolationCheck();
    if (this.options.isolation === 'bwrap' && isolation.mode !== 'bwrap') throw new SandboxUnavailable(readinessOf('bwrap', isolation));
    const layout = layoutByName(this.options.dataDir, name);
    return this.serial(layout.name, async () => {
      this.sweepDoors();
      if (isolation.mode !== 'bwrap') {
        await ensureUnisolatedFolders(layout);
        return { layout, isolation, door: await this.doorFor(layout, undefined), roots: { work: layout.work, tmp: layout.tmp } };
      }
      await ensureStateFolders(layout);
      const uid = await this.uids.claim(layout.root, layout.state);
      const cgroup = isolation.cgroups ? new WorkspaceCgroup(isolation.cgroups, `ws-${uid}`) : undefined;
      let holder = await liveHolder(layout, uid);
      if (!holder) holder = await this.startHolder(layout, isolation, uid, cgroup, owner);
      else holder = await addOwner(layout, holder, owner);
      let door: Door;
      try {
        door = await this.doorFor(layout, holder);
      } catch (error) {
        // A job left from a worker that died held the door's port: start the sandbox afresh.
        if (!String((error as { code?: string }).code).includes('EADDRINUSE')) throw error;
        this.options.logger?.warn(
          { component: 'sandbox', workspace: layout.name },
          'the door port was taken inside the sandbox; restarting it',
        );
        await this.endProcesses(layout, uid, cgroup);
        holder = await this.startHolder(layout, isolation, uid, cgroup, owner);
        door = await this.doorFor(layout, holder);
      }
      return {
        layout,
        isolation,
        holder,
        door,
        uid,
        ...(cgroup ? { cgroup } : {}),
        roots: { work: SANDBOX_VIEW.work, tmp: SANDBOX_VIEW.tmp },
      };
    });
  }

  private async startHolder(
    layout: WorkspaceLayout,
    isolation: IsolationCheck,
    uid: number,
    cgroup: WorkspaceCgroup | undefined,
    owner: string | undefined,
  ): Promise<HolderRecord> {
    // A holder of the earlier design (root) or processes left by a dead one: none may share the new sandbox.
    await this.endProcesses(layout, uid, cgroup);
    const setup = (await this.holderSetup?.(layout)) ?? NO_HOLDER_SETUP;
    return launchHolder({
      layout,
      isolation,
      uid,
      ...(cgroup ? { cgroup } : {}),
      limits: setup.folderDisk ? { ...this.limits, diskMiB: 0 } : this.limits,
      binds: setup.binds,
      dataDir: this.options.dataDir,
      hiddenPaths: this.options.hiddenPaths ?? [],
      ...(owner ? { owner } : {}),
    });
  }

  /** The workspace's door, opened in the holder's network namespace (or on the host when unisolated). */
  private async doorFor(layout: WorkspaceLayout, holder: HolderRecord | undefined): Promise<Door> {
    const existing = this.doors.get(layout.name);
    if (existing && !existing.isClosed && existing.holderPid === holder?.pid) return existing;
    existing?.close();
    const listener = holder ? await listenInNamespace(holder.pid) : await listenOnHost();
    const port = holder ? DOOR_PORT : (listener.address() as { port: number }).port;
    const door = new Door(listener, port, holder?.pid, {
      workspace: layout.name,
      gitBaseUrl: this.options.gitBaseUrl,
      ...(this.options.identityToken ? { identityToken: this.options.identityToken } : {}),
      ...(this.options.logger ? { logger: this.options.logger } : {}),
      ...(this.options.resolver ? { resolver: this.options.resolver } : {}),
      ...(this.options.pushPolicy ? { pushPolicy: this.options.pushPolicy } : {}),
    });
    this.doors.set(layout.name, door);
    return door;
  }

  /**
   * Doors whose holder ended by itself (its folder was deleted) would keep a dead namespace alive.
   * Looked for at most every few seconds, not on every call: each look reads every door's holder
   * in /proc, so on every call it would cost in proportion to the workspaces the host runs (a
   * call's own workspace checks its holder anyway, doorFor).
   */
  private sweepDoors(now = Date.now()): void {
    if (now - this.swept < DOOR_SWEEP_MS) return;
    this.swept = now;
    for (const [name, door] of this.doors) {
      if (door.holderPid !== undefined && processStartTime(door.holderPid) === undefined) {
        door.close();
        this.doors.delete(name);
      }
    }
  }

  /** The argv that runs our helper program (`exec <argv…>` or one file operation) in this workspace (entry-argv.ts). */
  argv(prepared: SandboxTarget, helperArgs: string[]): string[] {
    return entryArgv(prepared, this.limits, prepared.holder ? this.filter(prepared.isolation) : '', helperArgs);
  }

  /** The argv of one shell command in the workspace. */
  commandArgv(prepared: PreparedWorkspace, command: string): string[] {
    return this.argv(prepared, ['exec', ...shellArgs(command, prepared.roots.work)]);
  }

  /**
   * A workspace whose sandbox is running already, to run a program in without preparing it or
   * opening a door (an operator's or a test's look at a worker's workspace); undefined when none runs.
   */
  async attach(name: string): Promise<SandboxTarget | undefined> {
    const isolation = await this.isolationCheck();
    if (isolation.mode !== 'bwrap') return undefined;
    const layout = layoutByName(this.options.dataDir, name);
    const uid = await this.recordedUid(layout);
    const holder = uid === undefined ? undefined : await liveHolder(layout, uid);
    if (!holder || uid === undefined) return undefined;
    const cgroup = isolation.cgroups ? new WorkspaceCgroup(isolation.cgroups, `ws-${uid}`) : undefined;
    return { layout, isolation, holder, uid, ...(cgroup ? { cgroup } : {}), roots: { work: SANDBOX_VIEW.work, tmp: SANDBOX_VIEW.tmp } };
  }

  private filter(isolation: IsolationCheck): string {
    this.filterHex ??= seccompFilter(isolation.seccomp).toString('hex');
    return this.filterHex;
  }

  /**
   * Ends everything the workspace runs, keeping its files: the door shuts (and its grant
   * with it), the holder's init is killed and the kernel kills every process in its pid
   * namespace, however it detached. Unisolated, marked leftovers are killed (best effort).
   */
  async close(workspace: WorkspaceRef): Promise<{ holderStopped: boolean; leftoversKilled: number }> {
    return this.closeByName(workspaceLayout(this.options.dataDir, workspace).name);
  }

  async closeByName(name: string): Promise<{ holderStopped: boolean; leftoversKilled: number }> {
    const layout = layoutByName(this.options.dataDir, name);
    return this.serial(layout.name, () => this.closeNow(layout));
  }

  private async closeNow(layout: WorkspaceLayout): Promise<{ holderStopped: boolean; leftoversKilled: number }> {
    this.doors.get(layout.name)?.close();
    this.doors.delete(layout.name);
    const uid = await this.recordedUid(layout);
    const isolation = await this.isolationCheck();
    const cgroup = uid !== undefined && isolation.cgroups ? new WorkspaceCgroup(isolation.cgroups, `ws-${uid}`) : undefined;
    const holderStopped = await stopHolder(layout);
    const leftoversKilled = uid !== undefined ? await this.endProcesses(layout, uid, cgroup) : killMarkedProcesses(layout.name);
    return { holderStopped, leftoversKilled };
  }

  /** Kills every process of the workspace's uid (the pid namespace took them with the holder; this is the proof) and removes its cgroups. */
  private async endProcesses(layout: WorkspaceLayout, uid: number, cgroup: WorkspaceCgroup | undefined): Promise<number> {
    const holder = await liveHolder(layout);
    await stopHolder(layout);
    // The kernel ends every process of the pid namespace before its init is gone: wait for that
    // (one small read a look) before the proof below, which reads every process of the host.
    if (holder) await untilEnded(holder);
    let killed = 0;
    for (let round = 0; round < 50; round += 1) {
      const left = processesOf(uid);
      if (left.length === 0) break;
      for (const pid of left) {
        try {
          process.kill(pid, 'SIGKILL');
          killed += round === 0 ? 1 : 0;
        } catch {
          // Gone meanwhile.
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await cgroup
      ?.remove()
      .catch((error: Error) =>
        this.options.logger?.warn(
          { component: 'sandbox', workspace: layout.name, error: error.message },
          'a workspace cgroup could not be removed',
        ),
      );
    return killed;
  }

  private async recordedUid(layout: WorkspaceLayout): Promise<number | undefined> {
    try {
      const uid = Number(readFileSync(join(layout.state, 'uid'), 'utf8'));
      return Number.isInteger(uid) && uid > 0 ? uid : undefined;
    } catch {
      return undefined;
    }
  }

  /** Closes the workspace and removes its folder. */
  async release(workspace: WorkspaceRef): Promise<{ holderStopped: boolean; leftoversKilled: number }> {
    const layout = workspaceLayout(this.options.dataDir, workspace);
    return this.serial(layout.name, async () => {
      const closed = await this.closeNow(layout);
      const uid = await this.recordedUid(layout);
      // The files the sandbox wrote go with its own rights (a folder disk), or as one image file.
      await new WorkspaceDisk({ diskMiB: this.limits.diskMiB, images: true }).remove(layout, uid).catch(() => undefined);
      await this.uids.release(layout.root, layout.state);
      // Renamed aside first, so a kill mid-removal never leaves a half-deleted workspace
      // under the key; the retry (or any later release) removes what is left aside.
      const parent = dirname(layout.root);
      const aside = join(parent, `${RELEASED}${layout.name}-${randomBytes(4).toString('hex')}`);
      await rename(layout.root, aside).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      for (const entry of await readdir(parent).catch(() => [] as string[])) {
        if (entry.startsWith(`${RELEASED}${layout.name}-`)) await rm(join(parent, entry), { recursive: true, force: true, maxRetries: 3 });
      }
      return closed;
    });
  }

  /** Whether the workspace has files on this host (its folder exists). */
  async hasFiles(workspace: WorkspaceRef): Promise<boolean> {
    return stat(workspaceLayout(this.options.dataDir, workspace).root).then(
      () => true,
      () => false,
    );
  }

  /** Whether the workspace's sandbox is running now (unisolated: never). */
  async hasLiveHolder(name: string): Promise<boolean> {
    return (await liveHolder(layoutByName(this.options.dataDir, name))) !== undefined;
  }

  /** The workspaces of this data dir that have a live holder, with the workflows that used them (the janitor's list). */
  async liveHolders(): Promise<Array<{ name: string; holder: HolderRecord }>> {
    const found: Array<{ name: string; holder: HolderRecord }> = [];
    for (const name of await readdir(join(this.options.dataDir, 'workspaces')).catch(() => [] as string[])) {
      if (name.startsWith(RELEASED)) continue;
      const holder = await liveHolder(layoutByName(this.options.dataDir, name));
      if (holder) found.push({ name, holder });
    }
    return found;
  }

  /** Shuts every door this worker holds (worker shutdown); holders and jobs stay for the next worker. */
  shutDoors(): void {
    for (const door of this.doors.values()) door.close();
    this.doors.clear();
  }
}

/** How often prepare looks for doors whose holder ended by itself. */
const DOOR_SWEEP_MS = 5_000;

/** The prefix of a released workspace's folder while it is being removed. */
const RELEASED = '.released-';
