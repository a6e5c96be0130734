/**
 * What a run or unit may push, as its workflow says it to the activities that push (a shell
 * command's `bash`, `pushBranch`): the sandbox's door judges every ref update of a push by it
 * (activities/sandbox/network/push-rules.ts).
 */
export interface OwnedRefs {
  /** Branches (names after `refs/heads/`) the run or its unit created; each must be under the deployment's prefix. */
  own: string[];
  /** An existing pull request the run or unit was admitted to push to, and its head branch: fast-forwards only, never deleted. */
  pullRequest?: { number: number; head: string };
}

/** The deployment's default prefix for the branches runs and units create (`github.pushes.branchPrefix`). */
export const DEFAULT_BRANCH_PREFIX = 'switchboard/';
