import type { OwnedRefs } from './pushes';

/**
 * The contract of the sandbox activities (`bash`, `readFile`, `writeFile`, `jobStatus`,
 * workspace lifecycle). Workflows import these types only.
 */

/** Identifies a workspace: one per thread, under `<dataDir>/workspaces/`. */
export interface WorkspaceRef {
  /** A stable key (the thread id); mapped to a safe folder name by the activity. */
  key: string;
  /** May commands reach the network (from the profile's machine class)? */
  network: boolean;
}

export interface BashInput {
  workspace: WorkspaceRef;
  command: string;
  /** Per-call timeout; default 120 000, capped at 1 200 000 (20 minutes). */
  timeoutMs?: number;
  /**
   * The run's identity for git (read or write scope). Commands never see its token: the
   * workspace's network door adds it to git requests on the worker's side.
   */
  identity?: 'none' | 'read' | 'write';
  /** The repository the run is bound to (`owner/name`): the only one a write identity may push to. */
  repo?: string;
  /** The branches of `repo` the run owns or was admitted to: the only refs the door lets its pushes update. */
  refs?: OwnedRefs;
  /** The run's agent and machine class: they choose the destinations the network door allows. */
  agent?: string;
  machine?: string;
  /**
   * The command is the repository's setup (workflows/run/repo-context.ts): in a resident checkout
   * the worker host copies in what the same setup produced before instead of running it, and keeps
   * what a first run produced (docs/sandbox.md#setup-results).
   */
  setup?: { repo: string; commands: string[]; lockfiles: string[] };
}

export interface BashResult {
  exitCode: number;
  /** Combined, capped output; `truncated` says when bytes were dropped. */
  output: string;
  truncated: boolean;
  timedOut: boolean;
  durationMs: number;
  /** Guidance for the model, e.g. the detach recipe after a timeout. */
  hint?: string;
  /** Where a long output is also kept in the workspace (as the command sees the path), for reading back later. */
  savedOutput?: string;
  /**
   * How the command was confined: `bwrap` (namespaces), `none` (unisolated by explicit
   * configuration) or `refused` (no isolation here: the command did not run).
   */
  isolation?: 'bwrap' | 'none' | 'refused';
}

export type FileResult =
  | { ok: true; path: string; content?: string; bytes: number; truncated?: boolean; totalLines?: number }
  | {
      ok: false;
      path: string;
      error: string;
      code: 'path_outside_workspace' | 'not_found' | 'too_large' | 'io_error' | 'sandbox_unavailable';
    };

export interface JobStatusInput {
  workspace: WorkspaceRef;
  /** Files the detach recipe writes, as the sandboxed command sees them (e.g. /tmp/job.exit). */
  exitFile: string;
  logFile?: string;
}

export interface JobStatus {
  done: boolean;
  exitCode?: number;
  /** The last lines of the log, when there is one. */
  logTail?: string;
  /** Set when the files cannot be read as named (e.g. outside the workspace); polling on will not help. */
  error?: string;
}

export interface ReadFileInput {
  workspace: WorkspaceRef;
  /** Relative to the workspace, or `/workspace/…`, or `/tmp/…` (the workspace's private tmp). */
  path: string;
  /** First line, counting from 1. */
  offset?: number;
  /** Lines to return (default 2000). */
  limit?: number;
}

export interface WriteFileInput {
  workspace: WorkspaceRef;
  path: string;
  content: string;
}

export interface WorkspaceInput {
  workspace: WorkspaceRef;
}

export interface WorkspaceState {
  /** The workspace folder on the worker's disk. */
  root: string;
  isolation: 'bwrap' | 'none';
  /** Host pid of the bubblewrap holder's init, when isolated. */
  holderPid?: number;
  /**
   * The task queue of the worker host that holds this workspace: its later sandbox and file
   * activities belong there (absent when the worker was built without one, as in unit tests).
   */
  hostTaskQueue?: string;
}
