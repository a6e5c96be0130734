/** A unit's checkout activities' inputs and results (activities/units/unit-workspace.ts). */

export interface PrepareUnitWorkspaceInput {
  /** The sandbox workspace key the unit's runs use. */
  workspaceKey: string;
  repo: string;
  /** The unit's branch: checked out (created from `base` when it does not exist yet). */
  branch: string;
  base?: string;
  /** Check out exactly this commit (a review of a PR head) instead of the branch tip. */
  checkoutSha?: string;
  identity: 'read' | 'write';
  /**
   * The machine class of the runs that use the checkout: `repo-resident` borrows from the host's
   * cache of the repository; anything else (`repo-cold`, or a caller that does not say) never does.
   */
  machine?: string;
}

export interface UnitWorkspace {
  /** The checkout as the unit's runs see it (`/workspace`); its git work runs inside the workspace's sandbox. */
  path: string;
  headSha: string;
  /** The branch new commits are compared against. */
  base: string;
  /** The base branch's commit on the remote: a checkout whose head differs carries commits pushed by an earlier round. */
  baseSha?: string;
  /** The task queue of the host holding the checkout: its commit, push and release go there (absent on a worker without one). */
  hostTaskQueue?: string;
  /** Whether the checkout borrows the objects of the host's cache of the repository (resident work). */
  cached?: boolean;
  /** Objects the checkout holds of its own: with a warm cache, only what the cache lacked. */
  localObjects?: number;
  /** Why the cache could not be used, when it could not (the checkout then fetched everything itself). */
  cacheNotice?: string;
}

export interface CommitWorkspaceInput {
  workspaceKey: string;
  message: string;
  /** The commit the round started from: tells whether the round changed anything. */
  since: string;
}

export interface CommitResult {
  headSha: string;
  /** The round produced commits (its own or the run's). */
  changed: boolean;
}
