import { type WorkspaceCgroup } from './cgroups';
import { type HolderRecord } from './holder';
import { type IsolationCheck } from './isolation-check';
import { type WorkspaceLayout } from './workspace-layout';

// On its own so that ./entry-argv, which builds a target's argv, and ./sandbox-host, which
// prepares targets and asks ./entry-argv for their argv, do not import each other.

/** What it takes to run a program in a workspace's sandbox (no door: a program that needs none). */
export interface SandboxTarget {
  layout: WorkspaceLayout;
  isolation: IsolationCheck;
  holder?: HolderRecord;
  /** Isolated: the workspace's own host uid, and its cgroups when the host has the controllers. */
  uid?: number;
  cgroup?: WorkspaceCgroup;
  /** The folders the file tools may reach, as the helper (inside the sandbox, or on the host unisolated) names them. */
  roots: { work: string; tmp: string };
}
