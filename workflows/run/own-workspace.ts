import type { RunInput } from '../contracts';

/** Tools that run commands in the workspace's sandbox. */
export const SANDBOX_COMMAND_TOOLS = ['bash', 'grep', 'find_files', 'list_directory'];

/**
 * A run works in its thread's workspace (or the unit's checkout); a role child shares its
 * parent's, and an agent child started by `task` gets a cold one of its own.
 */
export function workspaceKeyFor(input: RunInput, runId: string): string {
  if (input.parent && input.profile.kind === 'agent') return runId;
  return input.workspaceKey ?? input.threadId;
}

export interface OwnWorkspaceDeps {
  input: RunInput;
  /** `patched` from the SDK (a fake in unit tests). */
  patched: (id: string) => boolean;
  /** Releases an agent child's workspace, files and all, on the host that holds it. */
  release(): Promise<unknown>;
  /** Ends the workspace's processes on its host (WorkspaceHost.close). */
  close(): Promise<unknown>;
  /** `CancellationScope.nonCancellable`: a stopped run still cleans up. */
  nonCancellable: <T>(work: () => Promise<T>) => Promise<T>;
}

/**
 * Every process the run started in its workspace ends with the run, however it detached
 * (the files stay for the thread's next run). A role child shares its parent's workspace
 * and leaves it to the parent. An agent child's workspace is its own (keyed by its run id) and
 * nothing comes back to it, so it is released, files and all, on the host that holds it. (Only
 * agent children in a session of their own hold a shell, task-children.ts AGENT_CHILD_OWN_SESSION;
 * before that no agent child reached this point, so no history holds the old branch.)
 * A cleanup that fails is no failed run.
 */
export async function closeOwnWorkspace(deps: OwnWorkspaceDeps): Promise<void> {
  const { input } = deps;
  const { profile } = input;
  if (input.parent && profile.kind === 'role') return;
  if (!SANDBOX_COMMAND_TOOLS.some((tool) => profile.tools.includes(tool))) return;
  if (!deps.patched('close-workspace-at-run-end')) return;
  if (input.parent && profile.kind === 'agent') {
    await deps.nonCancellable(() => deps.release()).catch(() => undefined);
    return;
  }
  await deps.nonCancellable(() => deps.close()).catch(() => undefined);
}
