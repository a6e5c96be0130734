import { createConversationWrites } from './conversation-writes';
import { type GitHubIdentities } from './identity';
import { createIssueWrites } from './issue-writes';
import { createPullRequestWrites } from './pull-request-writes';
import { createPushBranch } from './push-branch';
import { createGitHubReadActivities } from './reads';
import { createRepositoryVetting } from './vetting';
import { type WorkspaceGit } from '../sandbox/workspace-git';

export interface GitHubActivityDeps {
  identities: GitHubIdentities;
  /** Git on workspaces, inside their sandboxes (pushes); absent where this process holds none. */
  workspaceGit?: () => WorkspaceGit | undefined;
}

/**
 * Every GitHub activity: reads, vetting, and the effect-keyed writes. Register the result
 * with the worker; workflows call them through `proxyActivities<GitHubActivities>()`.
 */
export function createGitHubActivities(deps: GitHubActivityDeps) {
  return {
    ...createGitHubReadActivities(deps.identities),
    ...createRepositoryVetting(deps.identities),
    ...createPushBranch(deps.identities, deps.workspaceGit ?? (() => undefined)),
    ...createPullRequestWrites(deps.identities),
    ...createConversationWrites(deps.identities),
    ...createIssueWrites(deps.identities),
  };
}

export type GitHubActivities = ReturnType<typeof createGitHubActivities>;

export { createGitHubIdentities, githubIdentitiesFromEnvironment, createOctokit, APP_PERMISSIONS } from './identity';
export type { GitHubIdentities, GitHubIdentityOptions, IdentityScope, GitHubAppCredential } from './identity';
export { unitBranchName } from './push-branch';
export { effectMarker } from './effects';
export type * from './types';
