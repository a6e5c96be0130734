import { readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { liveHolder, processStartTime, startHolder, stopHolder, type HolderRecord } from './holder';
import {
  detectIsolationOnce,
  installed,
  readinessOf,
  type IsolationCheck,
  type IsolationSetting,
  type SandboxReadiness,
} from './isolation';
import { Door, type DoorLogger } from './network/door';
import { type Resolver } from './network/door-grant';
import { DOOR_PORT, listenInNamespace, listenOnHost } from './network/open-door';
import { SANDBOX_VIEW, ensureWorkspaceFolders, workspaceLayout, type WorkspaceLayout } from './workspace-layout';
import { type WorkspaceRef } from './types';

/** What the sandbox logs through; the project's pino logger fits. */
export interface SandboxLogger extends DoorLogger {
  error(details: object, message: string): void;
}

export interface PreparedWorkspace {
  layout: WorkspaceLayout;
  isolation: IsolationCheck;
  holder?: HolderRecord;
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
}

/** Thrown by prepare when commands may not run here; the activities turn it into a refusal. */
export class SandboxUnavailable extends Error {
  constructor(readonly readiness: SandboxReadiness) {
    super(`shell commands are refused: this worker cannot isolate them (${readiness.reason}). Fix: ${readiness.fix}`);
  }
}

/** Runs a command with `bash -c` in `dir`, stderr joined to stdout so the output keeps its order. */
const shell = (command: string, dir: string) => ['/bin/sh', '-c', 'cd "$2" && exec bash -c "$1" 2>&1', 'sh', command, dir];

/**
 * A call's command dies with the worker that runs it (its deadline and reaping die with the
 * worker too); each link of the chain gets SIGKILL when its parent goes. Detached jobs are
 * children of the holder's init, not of this chain, so they are untouched.
 */
const dieWithParent = ['setpriv', '--pdeathsig', 'KILL', '--'];

/**
 * The workspaces of one worker: decides the isolation once, starts each workspace's holder
 * and opens its network door (one at a time per workspace, so two concurrent calls never
 * start two), and builds the argv that runs a command inside it.
 */
export class SandboxHost {
  private isolation?: Promise<IsolationCheck>;
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly doors = new Map<string, Door>();

  constructor(private readonly options: SandboxHostOptions) {}

  isolationCheck(): Promise<IsolationCheck> {
    this.isolation ??= this.decide();
    return this.isolation;
  }

  async readiness(): Promise<SandboxReadiness> {
    return readinessOf(this.options.isolation, await this.isolationCheck());
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
    if (check.mode === 'bwrap') logger?.info({ component: 'sandbox' }, 'sandbox commands are isolated with bubblewrap');
    else
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

  async prepare(workspace: WorkspaceRef): Promise<PreparedWorkspace> {
    const isolation = await this.isolationCheck();
    if (this.options.isolation === 'bwrap' && isolation.mode !== 'bwrap') throw new SandboxUnavailable(readinessOf('bwrap', isolation));
    const layout = workspaceLayout(this.options.dataDir, workspace);
    return this.serial(layout.name, async () => {
      await ensureWorkspaceFolders(layout);
      this.sweepDoors();
      if (isolation.mode !== 'bwrap') return { layout, isolation, door: await this.doorFor(layout, undefined) };
      let holder = (await liveHolder(layout)) ?? (await this.startHolder(layout));
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
        await stopHolder(layout);
        holder = await this.startHolder(layout);
        door = await this.doorFor(layout, holder);
      }
      return { layout, isolation, holder, door };
    });
  }

  private startHolder(layout: WorkspaceLayout): Promise<HolderRecord> {
    return startHolder(layout, this.options.dataDir, this.options.hiddenPaths ?? []);
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
    });
    this.doors.set(layout.name, door);
    return door;
  }

  /** Doors whose holder ended by itself (its folder was deleted) would keep a dead namespace alive. */
  private sweepDoors(): void {
    for (const [name, door] of this.doors) {
      if (door.holderPid !== undefined && processStartTime(door.holderPid) === undefined) {
        door.close();
        this.doors.delete(name);
      }
    }
  }

  /** The argv of one command: entered into the holder's namespaces with every capability dropped. */
  argv(prepared: PreparedWorkspace, command: string): string[] {
    if (!prepared.holder) return [...(prepared.isolation.setpriv ? dieWithParent : []), ...shell(command, prepared.layout.work)];
    // --root (no value) takes the holder's root: joining a mount namespace alone would leave us
    // at the namespace's base mount, not bwrap's new root. The working directory is set inside
    // the shell, because nsenter would resolve --wd=<dir> on the host. Every call joins the
    // holder's network namespace: its loopback and the door are all there is.
    return [
      ...dieWithParent,
      'nsenter',
      '--target',
      String(prepared.holder.pid),
      '--mount',
      '--pid',
      '--ipc',
      '--uts',
      '--net',
      '--root',
      '--',
      // Root inside, but with no capabilities and no way to regain them: cannot remount the
      // read-only system, change the namespace's network or leave the namespaces.
      'setpriv',
      '--pdeathsig',
      'KILL',
      '--no-new-privs',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--',
      ...shell(command, SANDBOX_VIEW.work),
    ];
  }

  /**
   * Ends everything the workspace runs, keeping its files: the door shuts (and its grant
   * with it), the holder's init is killed and the kernel kills every process in its pid
   * namespace, however it detached. Unisolated, marked leftovers are killed (best effort).
   */
  async close(workspace: WorkspaceRef): Promise<{ holderStopped: boolean; leftoversKilled: number }> {
    const layout = workspaceLayout(this.options.dataDir, workspace);
    return this.serial(layout.name, () => this.closeNow(layout));
  }

  private async closeNow(layout: WorkspaceLayout): Promise<{ holderStopped: boolean; leftoversKilled: number }> {
    this.doors.get(layout.name)?.close();
    this.doors.delete(layout.name);
    const holderStopped = await stopHolder(layout);
    const leftoversKilled = killMarkedProcesses(layout.name);
    return { holderStopped, leftoversKilled };
  }

  /** Closes the workspace and removes its folder. */
  async release(workspace: WorkspaceRef): Promise<{ holderStopped: boolean; leftoversKilled: number }> {
    const layout = workspaceLayout(this.options.dataDir, workspace);
    return this.serial(layout.name, async () => {
      const closed = await this.closeNow(layout);
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

  /** Shuts every door this worker holds (worker shutdown); holders and jobs stay for the next worker. */
  shutDoors(): void {
    for (const door of this.doors.values()) door.close();
    this.doors.clear();
  }
}

/** The prefix of a released workspace's folder while it is being removed. */
const RELEASED = '.released-';

/** Kills every process whose environment carries this workspace's marker (the unisolated reaper). */
function killMarkedProcesses(name: string): number {
  const marker = `SWITCHBOARD_WORKSPACE=${name}`;
  let killed = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(marker)) continue;
      process.kill(Number(entry), 'SIGKILL');
      killed += 1;
    } catch {
      // Gone already, or not ours to read.
    }
  }
  return killed;
}
