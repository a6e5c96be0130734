import { inSpan } from '../tracing';
import { BASH_OUTPUT_LIMIT } from '../../tools/bash';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { failure } from '../../workflows/contracts';
import { BASH_TIMEOUT_DEFAULT_MS, BASH_TIMEOUT_MAX_MS } from '../../tools/bash';
import { currentActivityContext } from './activity-context';
import { commandEnvironment } from './command-environment';
import { DEFAULT_FILE_LIMITS, WorkspaceFiles, type FileLimits } from './files';
import { boundsHint, clampedTimeoutNote, isFull, timeoutHint, unisolatedNote } from './hints';
import { type IsolationCheck, type IsolationSetting } from './isolation';
import { type SandboxLimits } from './limits';
import { DEFAULT_EGRESS, egressAllowFor, type EgressSettings, type Resolver } from './network/door-grant';
import { type PushPolicy } from './network/receive-pack';
import { runCommand } from './run-command';
import { saveLongOutput } from './saved-output';
import { SandboxHost, SandboxUnavailable, type PreparedWorkspace, type SandboxLogger } from './sandbox-host';
import { type UidRange } from './sandbox-uids';
import { markUsed, SANDBOX_VIEW, workspaceLayout } from './workspace-layout';
import { registeredRepoCache, type RepoCacheSettings } from './repo-cache/repo-cache';
import { SetupStore } from './repo-cache/setup-store';
import {
  type BashInput,
  type BashResult,
  type FileResult,
  type JobStatus,
  type JobStatusInput,
  type ReadFileInput,
  type WorkspaceInput,
  type WorkspaceRef,
  type WorkspaceState,
  type WriteFileInput,
} from '../../workflows/contracts/sandbox';

export * from '../../workflows/contracts/sandbox';
export { DETACH_RECIPE } from './hints';
export { type SandboxLogger } from './sandbox-host';
export { detectIsolation, ISOLATION_FIX, readinessOf, type IsolationSetting, type SandboxReadiness } from './isolation';
export { DEFAULT_EGRESS, type EgressSettings } from './network/door-grant';
export { DEFAULT_LIMITS, type SandboxLimits } from './limits';
export { WorkspaceFiles } from './files';
export { SandboxUnavailable } from './sandbox-host';

/** What the sandbox activities need; everything else is derived. */
export interface SandboxDeps {
  /** Workspaces live under `<dataDir>/workspaces/`. */
  dataDir: string;
  /** This host's own task queue (infra/host-queue.ts), returned by prepareWorkspace. */
  hostTaskQueue?: string;
  logger?: SandboxLogger;
  /** The run's token for git, by scope; added by the worker's side of the network door, never given to commands. */
  identityToken?: (scope: 'read' | 'write') => Promise<string | undefined>;
  /** The git host the token is for (default https://github.com); git URLs under it go through the door. */
  gitBaseUrl?: string;
  /** `bwrap` (default) fails closed; `unisolated-unsafe` runs commands on the host (local development only). */
  isolation?: IsolationSetting;
  /** Where network-enabled workspaces may connect (default: any public internet host). */
  egress?: EgressSettings;
  /** What one workspace may use of the host (processes, memory, /tmp, /dev/shm, disk, CPU time). */
  limits?: Partial<SandboxLimits>;
  /** The host uids workspaces run as (default 1 500 000 000 …, 100 000 of them). */
  uids?: UidRange;
  /** Characters of command output kept (head and tail); default 30 000. */
  outputLimit?: number;
  fileLimits?: Partial<FileLimits>;
  heartbeatMs?: number;
  /**
   * More host paths the sandbox must not see, when they lie under the system folders it does
   * see (`/usr`, `/etc` …); everything else of the host is out of view anyway.
   */
  hiddenPaths?: string[];
  /** How the machine is probed for bubblewrap (tests simulate a machine without it). */
  probe?: () => Promise<IsolationCheck>;
  /** Name resolution for the door (tests); the system resolver otherwise. */
  resolver?: Resolver;
  /** `sandbox.repoCache`: the warm object caches of resident work on this host (docs/sandbox.md#warm-repositories). */
  repoCache?: Partial<RepoCacheSettings>;
  /** Told when a repository cache was made or evicted (the worker polls a queue per cached repository). */
  onRepoCacheChange?: () => void;
  /** The rules the door judges a push's ref updates by: the deployment's `github.pushes`, narrowed per repository. */
  pushPolicy?: PushPolicy;
}

function checkWorkspace(workspace: WorkspaceRef | undefined): asserts workspace is WorkspaceRef {
  if (!workspace || typeof workspace.key !== 'string' || workspace.key.length === 0) {
    throw failure('invalid_input', 'a sandbox call needs workspace.key (the thread id)');
  }
}

/** The sandbox of one worker process: its host (holders, doors) and readiness, shared by the activities. */
export function createSandboxHost(deps: SandboxDeps): SandboxHost {
  const host = new SandboxHost({
    dataDir: resolve(deps.dataDir),
    isolation: deps.isolation ?? 'bwrap',
    gitBaseUrl: deps.gitBaseUrl ?? 'https://github.com',
    hiddenPaths: (deps.hiddenPaths ?? []).map((path) => resolve(path)),
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.identityToken ? { identityToken: deps.identityToken } : {}),
    ...(deps.probe ? { probe: deps.probe } : {}),
    ...(deps.resolver ? { resolver: deps.resolver } : {}),
    ...(deps.limits ? { limits: deps.limits } : {}),
    ...(deps.uids ? { uids: deps.uids } : {}),
    ...(deps.pushPolicy ? { pushPolicy: deps.pushPolicy } : {}),
  });
  // Decided (and logged, loudly when isolation is off or missing) at start, not at the first command.
  void host.isolationCheck();
  return host;
}

/** Which of an isolated workspace's bounded filesystems are full now (its disk only when it is a bounded image). */
async function fullFilesystems(
  files: WorkspaceFiles,
  prepared: PreparedWorkspace,
  limits: SandboxLimits,
): Promise<Array<'disk' | 'tmp' | 'shm'>> {
  const parts: Record<string, 'disk' | 'tmp' | 'shm'> = {
    ...(prepared.isolation.diskImages && limits.diskMiB > 0 ? { [SANDBOX_VIEW.work]: 'disk' as const } : {}),
    [SANDBOX_VIEW.tmp]: 'tmp',
    '/dev/shm': 'shm',
  };
  const spaces = await files.spaces(Object.keys(parts));
  return spaces.filter(isFull).map((space) => parts[space.path]);
}

/** The workflow an activity works for: the janitor's evidence that a sandbox is still in use. */
function callingWorkflow(): string | undefined {
  return currentActivityContext()?.info.workflowExecution?.workflowId;
}

/**
 * A workspace's files for another activity (attach, skills): reached inside its sandbox, or a
 * refusal when this worker cannot isolate it.
 */
export async function workspaceFilesFor(
  host: SandboxHost,
  workspace: WorkspaceRef,
  limits: Partial<FileLimits> = {},
): Promise<WorkspaceFiles | SandboxUnavailable> {
  try {
    return new WorkspaceFiles(host, await host.prepare(workspace, callingWorkflow()), { ...DEFAULT_FILE_LIMITS, ...limits });
  } catch (error) {
    if (error instanceof SandboxUnavailable) return error;
    throw error;
  }
}

/**
 * The sandbox activities: shell commands and file access in a per-thread workspace,
 * isolated with bubblewrap (or refused, unless unisolated mode was configured), its network
 * door, and detached-job status for wait_for_job.
 */
export function createSandboxActivities(deps: SandboxDeps, host: SandboxHost = createSandboxHost(deps)) {
  const fileLimits = { ...DEFAULT_FILE_LIMITS, ...deps.fileLimits };
  const gitBaseUrl = deps.gitBaseUrl ?? 'https://github.com';
  const egress = deps.egress ?? DEFAULT_EGRESS;

  /** The workspace, or the refusal to say when commands may not run on this worker. */
  async function prepareOrRefuse(workspace: WorkspaceRef): Promise<PreparedWorkspace | SandboxUnavailable> {
    try {
      return await host.prepare(workspace, callingWorkflow());
    } catch (error) {
      if (error instanceof SandboxUnavailable) return error;
      throw error;
    }
  }

  /** A file operation inside the workspace's sandbox, or the refusal when it has none here. */
  async function withFiles<T>(
    workspace: WorkspaceRef,
    refused: (message: string) => T,
    work: (files: WorkspaceFiles) => Promise<T>,
    writes = false,
  ): Promise<T> {
    const prepared = await prepareOrRefuse(workspace);
    if (prepared instanceof SandboxUnavailable) return refused(prepared.message);
    if (writes) await markUsed(prepared.layout);
    return work(new WorkspaceFiles(host, prepared, fileLimits));
  }

  let setups: SetupStore | undefined;
  /** The host's setup results, when it keeps repository caches. */
  function setupStore(): SetupStore | undefined {
    const cache = registeredRepoCache(host);
    if (cache && !setups) setups = new SetupStore(host, cache, { heartbeatMs: deps.heartbeatMs });
    return setups;
  }

  /** One command in a prepared workspace: run, bounded, explained (hints), its long output saved. */
  async function runBash(
    prepared: PreparedWorkspace,
    command: string,
    timeoutMs: number,
    notes: string[],
    network: boolean,
  ): Promise<BashResult> {
    const mode = prepared.isolation.mode;
    const before = await prepared.cgroup?.events();
    // The command as a span of its own: how it was confined and how it ended, never its text or output.
    const outcome = await inSpan(
      'sandbox exec',
      { 'switchboard.sandbox.isolation': mode, 'switchboard.sandbox.network': network },
      async (span) => {
        const ran = await runCommand({
          argv: host.commandArgv(prepared, command),
          env: commandEnvironment(prepared.layout, mode, { port: prepared.door.port, gitBaseUrl }),
          cwd: '/',
          timeoutMs,
          outputLimit: deps.outputLimit ?? BASH_OUTPUT_LIMIT,
          heartbeatMs: deps.heartbeatMs,
        });
        span.setAttributes({
          'process.exit.code': ran.exitCode,
          'switchboard.sandbox.timed_out': ran.timedOut,
          'switchboard.sandbox.output_truncated': ran.truncated,
        });
        return ran;
      },
    );
    const after = await prepared.cgroup?.events();
    const failed = outcome.exitCode !== 0 && !outcome.timedOut;
    const bounds = boundsHint(
      {
        forkRefused: (after?.forkRefusals ?? 0) > (before?.forkRefusals ?? 0),
        oomKilled: (after?.oomKills ?? 0) > (before?.oomKills ?? 0),
        ...(outcome.signal ? { signal: outcome.signal } : {}),
        ...(failed && mode === 'bwrap'
          ? { full: await fullFilesystems(new WorkspaceFiles(host, prepared, fileLimits), prepared, host.limits) }
          : {}),
      },
      host.limits,
    );
    if (bounds) notes.unshift(bounds);
    if (outcome.timedOut) {
      notes.unshift(timeoutHint(timeoutMs));
      outcome.output += `\n[stopped after ${Math.round(timeoutMs / 1000)} s: exit 124]`;
    }
    const savedOutput = await saveLongOutput(new WorkspaceFiles(host, prepared, fileLimits), prepared, outcome.output);
    const { signal: _signal, ...result } = outcome;
    return {
      ...result,
      ...(notes.length > 0 ? { hint: notes.join('\n') } : {}),
      ...(savedOutput ? { savedOutput } : {}),
      isolation: mode,
    };
  }

  return {
    /** Runs one shell command in the thread's workspace; failures of the command are data. */
    async bash(input: BashInput): Promise<BashResult> {
      const startedAt = Date.now();
      checkWorkspace(input?.workspace);
      if (typeof input.command !== 'string' || input.command.trim() === '') {
        throw failure('invalid_input', 'bash needs a non-empty command');
      }
      const notes: string[] = [];
      const requested = input.timeoutMs ?? BASH_TIMEOUT_DEFAULT_MS;
      const timeoutMs = Number.isFinite(requested)
        ? Math.min(Math.max(Math.floor(requested), 1_000), BASH_TIMEOUT_MAX_MS)
        : BASH_TIMEOUT_DEFAULT_MS;
      if (timeoutMs !== requested) notes.push(clampedTimeoutNote(requested, timeoutMs));
      const prepared = await prepareOrRefuse(input.workspace);
      if (prepared instanceof SandboxUnavailable) {
        return {
          exitCode: 126,
          output: `Refused: ${prepared.message}\n`,
          truncated: false,
          timedOut: false,
          durationMs: 0,
          isolation: 'refused',
        };
      }
      const mode = prepared.isolation.mode;
      if (mode === 'none') notes.push(unisolatedNote(prepared.isolation.reason ?? 'unavailable'));
      prepared.door.grant = {
        network: input.workspace.network === true,
        allow: egressAllowFor(egress, input.agent, input.machine),
        identity: input.identity ?? 'none',
        ...(input.repo ? { repo: input.repo } : {}),
        ...(input.refs ? { refs: input.refs } : {}),
      };
      const execute = (boundMs = timeoutMs) =>
        runBash(prepared, input.command, Math.max(1_000, Math.min(timeoutMs, boundMs)), notes, input.workspace.network === true);
      // The repository's setup in a resident checkout may be copied in from the host; anything else marks the workspace used.
      const store = input.setup && mode === 'bwrap' ? setupStore() : undefined;
      if (store && input.setup)
        return store.run(prepared, input.setup, { timeoutMs, startedAt, ...(input.identity ? { identity: input.identity } : {}) }, execute);
      await markUsed(prepared.layout);
      return execute();
    },

    async readFile(input: ReadFileInput): Promise<FileResult> {
      checkWorkspace(input?.workspace);
      return withFiles(
        input.workspace,
        (error): FileResult => ({ ok: false, path: input.path, code: 'sandbox_unavailable', error }),
        (files) => files.read(input.path, input.offset, input.limit),
      );
    },

    async writeFile(input: WriteFileInput): Promise<FileResult> {
      checkWorkspace(input?.workspace);
      return withFiles(
        input.workspace,
        (error): FileResult => ({ ok: false, path: input.path, code: 'sandbox_unavailable', error }),
        (files) => files.write(input.path, input.content),
        true,
      );
    },

    /** For wait_for_job: has the detached job written its exit file yet, and what did it log. */
    async jobStatus(input: JobStatusInput): Promise<JobStatus> {
      checkWorkspace(input?.workspace);
      // A poll never brings a released workspace back.
      if (!existsSync(workspaceLayout(host.dataDir, input.workspace).state))
        return { done: false, error: 'the workspace does not exist (never prepared, or released)' };
      return withFiles(
        input.workspace,
        (error): JobStatus => ({ done: false, error }),
        (files) => files.jobStatus(input.exitFile, input.logFile),
      );
    },

    /** Creates the workspace and starts its sandbox; repeating it is harmless. */
    async prepareWorkspace(input: WorkspaceInput): Promise<WorkspaceState> {
      checkWorkspace(input?.workspace);
      const prepared = await prepareOrRefuse(input.workspace);
      if (prepared instanceof SandboxUnavailable) throw failure('sandbox_unavailable', prepared.message);
      return {
        root: prepared.layout.root,
        isolation: prepared.isolation.mode,
        ...(prepared.holder ? { holderPid: prepared.holder.pid } : {}),
        ...(deps.hostTaskQueue ? { hostTaskQueue: deps.hostTaskQueue } : {}),
      };
    },

    /**
     * Ends every process of the workspace (the run that used it ended) and shuts its door;
     * the files stay for the thread's next run. Repeating it is harmless.
     */
    async closeWorkspace(input: WorkspaceInput): Promise<{ holderStopped: boolean; leftoversKilled: number }> {
      checkWorkspace(input?.workspace);
      return host.close(input.workspace);
    },

    /** Stops the sandbox, kills leftover jobs and removes the workspace folder; repeating it is harmless. */
    async releaseWorkspace(input: WorkspaceInput): Promise<{ holderStopped: boolean; leftoversKilled: number }> {
      checkWorkspace(input?.workspace);
      return host.release(input.workspace);
    },
  };
}

export type SandboxActivities = ReturnType<typeof createSandboxActivities>;
export { SandboxHost };
