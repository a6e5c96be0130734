import { resolve } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { BASH_TIMEOUT_DEFAULT_MS, BASH_TIMEOUT_MAX_MS } from '../../tools/bash';
import { commandEnvironment, writeCredentialHelper, type CredentialHelper } from './command-environment';
import { DEFAULT_FILE_LIMITS, readJobStatus, readWorkspaceFile, writeWorkspaceFile, type FileLimits } from './files';
import { clampedTimeoutNote, timeoutHint, unisolatedNote } from './hints';
import { runCommand } from './run-command';
import { SandboxHost, type PreparedWorkspace, type SandboxLogger } from './sandbox-host';
import { workspaceLayout } from './workspace-layout';
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
} from './types';

export * from './types';
export { DETACH_RECIPE } from './hints';
export { type SandboxLogger } from './sandbox-host';

/** What the sandbox activities need; everything else is derived. */
export interface SandboxDeps {
  /** Workspaces live under `<dataDir>/workspaces/`. */
  dataDir: string;
  logger?: SandboxLogger;
  /** The run's token for git, by scope; offered to commands only through a credential helper. */
  identityToken?: (scope: 'read' | 'write') => Promise<string | undefined>;
  /** The git host the token is for (default https://github.com); other hosts never get it. */
  gitBaseUrl?: string;
  /** `auto` uses bubblewrap when it works here and says so when it falls back; `bwrap` insists. */
  isolation?: 'auto' | 'bwrap' | 'none';
  /** Characters of command output kept (head and tail); default 30 000. */
  outputLimit?: number;
  fileLimits?: Partial<FileLimits>;
  heartbeatMs?: number;
  /**
   * More host paths the sandbox must not see (files with secrets, say). The data dir, the
   * worker's home and folder, /home, /root and /run/secrets are always hidden.
   */
  hiddenPaths?: string[];
}

function checkWorkspace(workspace: WorkspaceRef | undefined): asserts workspace is WorkspaceRef {
  if (!workspace || typeof workspace.key !== 'string' || workspace.key.length === 0) {
    throw ApplicationFailure.nonRetryable('a sandbox call needs workspace.key (the thread id)', 'invalid_input');
  }
}

/**
 * The sandbox activities: shell commands and file access in a per-thread workspace,
 * isolated with bubblewrap when the worker can, and detached-job status for wait_for_job.
 */
export function createSandboxActivities(deps: SandboxDeps) {
  const dataDir = resolve(deps.dataDir);
  const host = new SandboxHost(
    dataDir,
    deps.isolation ?? 'auto',
    deps.logger,
    (deps.hiddenPaths ?? []).map((path) => resolve(path)),
  );
  const fileLimits = { ...DEFAULT_FILE_LIMITS, ...deps.fileLimits };
  const gitBaseUrl = deps.gitBaseUrl ?? 'https://github.com';

  async function credentialFor(input: BashInput, notes: string[], prepared: PreparedWorkspace): Promise<CredentialHelper | undefined> {
    const scope = input.identity;
    if (scope !== 'read' && scope !== 'write') return undefined;
    const token = await deps.identityToken?.(scope);
    if (!token) {
      notes.push(`No ${scope} credential was available for git in this call.`);
      return undefined;
    }
    return writeCredentialHelper(prepared.layout, prepared.isolation.mode, token, gitBaseUrl);
  }

  return {
    /** Runs one shell command in the thread's workspace; failures of the command are data. */
    async bash(input: BashInput): Promise<BashResult> {
      checkWorkspace(input?.workspace);
      if (typeof input.command !== 'string' || input.command.trim() === '') {
        throw ApplicationFailure.nonRetryable('bash needs a non-empty command', 'invalid_input');
      }
      const notes: string[] = [];
      const requested = input.timeoutMs ?? BASH_TIMEOUT_DEFAULT_MS;
      const timeoutMs = Number.isFinite(requested)
        ? Math.min(Math.max(Math.floor(requested), 1_000), BASH_TIMEOUT_MAX_MS)
        : BASH_TIMEOUT_DEFAULT_MS;
      if (timeoutMs !== requested) notes.push(clampedTimeoutNote(requested, timeoutMs));
      const prepared = await host.prepare(input.workspace);
      const mode = prepared.isolation.mode;
      if (mode === 'none') notes.push(unisolatedNote(prepared.isolation.reason ?? 'unavailable'));
      let helper: CredentialHelper | undefined;
      try {
        helper = await credentialFor(input, notes, prepared);
        const outcome = await runCommand({
          argv: host.argv(prepared, input.workspace.network === true, input.command),
          env: { ...commandEnvironment(prepared.layout, mode), ...helper?.env },
          cwd: prepared.layout.work,
          timeoutMs,
          outputLimit: deps.outputLimit ?? 30_000,
          heartbeatMs: deps.heartbeatMs,
        });
        if (outcome.timedOut) {
          notes.unshift(timeoutHint(timeoutMs));
          outcome.output += `\n[stopped after ${Math.round(timeoutMs / 1000)} s: exit 124]`;
        }
        return { ...outcome, ...(notes.length > 0 ? { hint: notes.join('\n') } : {}), isolation: mode };
      } finally {
        await helper?.remove();
      }
    },

    async readFile(input: ReadFileInput): Promise<FileResult> {
      checkWorkspace(input?.workspace);
      const { layout } = await host.prepare(input.workspace);
      return readWorkspaceFile(layout, input.path, fileLimits, input.offset, input.limit);
    },

    async writeFile(input: WriteFileInput): Promise<FileResult> {
      checkWorkspace(input?.workspace);
      const { layout } = await host.prepare(input.workspace);
      return writeWorkspaceFile(layout, input.path, input.content, fileLimits);
    },

    /** For wait_for_job: has the detached job written its exit file yet, and what did it log. */
    async jobStatus(input: JobStatusInput): Promise<JobStatus> {
      checkWorkspace(input?.workspace);
      return readJobStatus(workspaceLayout(dataDir, input.workspace), input.exitFile, input.logFile);
    },

    /** Creates the workspace and starts its sandbox; repeating it is harmless. */
    async prepareWorkspace(input: WorkspaceInput): Promise<WorkspaceState> {
      checkWorkspace(input?.workspace);
      const prepared = await host.prepare(input.workspace);
      return {
        root: prepared.layout.root,
        isolation: prepared.isolation.mode,
        ...(prepared.holder ? { holderPid: prepared.holder.pid } : {}),
      };
    },

    /** Stops the sandbox, kills leftover jobs and removes the workspace folder; repeating it is harmless. */
    async releaseWorkspace(input: WorkspaceInput): Promise<{ holderStopped: boolean; leftoversKilled: number }> {
      checkWorkspace(input?.workspace);
      return host.release(input.workspace);
    },
  };
}

export type SandboxActivities = ReturnType<typeof createSandboxActivities>;
