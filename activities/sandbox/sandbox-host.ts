import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { ApplicationFailure } from '@temporalio/common';
import { liveHolder, startHolder, stopHolder, type HolderRecord } from './holder';
import { detectIsolation, installed, type IsolationCheck } from './isolation';
import { SANDBOX_VIEW, ensureWorkspaceFolders, workspaceLayout, type WorkspaceLayout } from './workspace-layout';
import { type WorkspaceRef } from './types';

/** What the sandbox logs through; the project's pino logger fits. */
export interface SandboxLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface PreparedWorkspace {
  layout: WorkspaceLayout;
  isolation: IsolationCheck;
  holder?: HolderRecord;
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
 * (one at a time per workspace, so two concurrent calls never start two), and builds the
 * argv that runs a command inside it.
 */
export class SandboxHost {
  private isolation?: Promise<IsolationCheck>;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly dataDir: string,
    private readonly requested: 'auto' | 'bwrap' | 'none',
    private readonly logger?: SandboxLogger,
    private readonly hiddenPaths: readonly string[] = [],
  ) {}

  isolationCheck(): Promise<IsolationCheck> {
    this.isolation ??= this.decide();
    return this.isolation;
  }

  private async decide(): Promise<IsolationCheck> {
    if (this.requested === 'none') {
      this.logger?.warn({ component: 'sandbox' }, 'sandbox isolation is off by configuration: commands run unisolated');
      return { mode: 'none', setpriv: await installed('setpriv'), reason: 'isolation is off in the configuration' };
    }
    const check = await detectIsolation();
    if (check.mode === 'bwrap') this.logger?.info({ component: 'sandbox' }, 'sandbox commands are isolated with bubblewrap');
    else this.logger?.warn({ component: 'sandbox', reason: check.reason }, 'bubblewrap is unavailable: sandbox commands run unisolated');
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
    if (this.requested === 'bwrap' && isolation.mode !== 'bwrap') {
      throw ApplicationFailure.nonRetryable(`bubblewrap isolation is required but unavailable: ${isolation.reason}`, 'sandbox_unavailable');
    }
    const layout = workspaceLayout(this.dataDir, workspace);
    return this.serial(layout.name, async () => {
      await ensureWorkspaceFolders(layout);
      if (isolation.mode !== 'bwrap') return { layout, isolation };
      const holder = (await liveHolder(layout)) ?? (await startHolder(layout, this.dataDir, this.hiddenPaths));
      return { layout, isolation, holder };
    });
  }

  /** The argv of one command: entered into the holder's namespaces with every capability dropped. */
  argv(prepared: PreparedWorkspace, network: boolean, command: string): string[] {
    if (!prepared.holder) return [...(prepared.isolation.setpriv ? dieWithParent : []), ...shell(command, prepared.layout.work)];
    const namespaces = ['--mount', '--pid', '--ipc', '--uts', ...(network ? [] : ['--net'])];
    // --root (no value) takes the holder's root: joining a mount namespace alone would leave us
    // at the namespace's base mount, not bwrap's new root. The working directory is set inside
    // the shell, because nsenter would resolve --wd=<dir> on the host.
    return [
      ...dieWithParent,
      'nsenter',
      '--target',
      String(prepared.holder.pid),
      ...namespaces,
      '--root',
      '--',
      // Root inside, but with no capabilities and no way to regain them: cannot remount the
      // read-only system or leave the namespaces.
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

  /** Stops the holder (and so every job in it), kills unisolated leftovers, removes the folder. */
  async release(workspace: WorkspaceRef): Promise<{ holderStopped: boolean; leftoversKilled: number }> {
    const layout = workspaceLayout(this.dataDir, workspace);
    return this.serial(layout.name, async () => {
      const holderStopped = await stopHolder(layout);
      const leftoversKilled = killMarkedProcesses(layout.name);
      await rm(layout.root, { recursive: true, force: true, maxRetries: 3 });
      return { holderStopped, leftoversKilled };
    });
  }
}

/** Kills every process whose environment carries this workspace's marker. */
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
