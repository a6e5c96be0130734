/** The repository instructions activity's input and result (activities/repo/instructions.ts). */

import type { WorkspaceRef } from './sandbox';

export interface InstructionsInput {
  repo: string;
  /** The run's workspace when it holds the repository's checkout: the files are read inside its sandbox. */
  workspace?: WorkspaceRef;
  /** Without a checkout, the commit or branch read through the contents API (default: the default branch). */
  ref?: string;
  /** The paths in play (a PR's files, paths the request names): the AGENTS.md nearest to each comes first. */
  paths?: string[];
  /** Without paths, a pull request whose changed files are the paths in play (read with the read identity). */
  pullRequest?: number;
}

export interface LoadedInstructions {
  /** Where they were read: inside the checkout's sandbox, or from GitHub. */
  source: 'checkout' | 'github';
  /** The files loaded, in prompt order, each bounded (`cut` when it was). */
  files: Array<{ path: string; text: string; chars: number; cut?: boolean }>;
  /** Files found but left out, and why (over the limits). */
  skipped: Array<{ path: string; why: string }>;
}
