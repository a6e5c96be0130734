import { createConversationWrites } from './conversation-writes';
import { type GitHubIdentities } from './identity';
import { createIssueWrites } from './issue-writes';
import { createPullRequestWrites } from './pull-request-writes';
import { createPushBranch } from './push-branch';
import { createReviewThreadWrites } from './review-threads';
import { createGitHubReadActivities } from './reads';
import { createRepositoryVetting } from './vetting';
import { type WorkspaceGit } from '../sandbox/workspace-git';
import { createRepoSettingsReader, type RepoSettingsReader, type RepoSettingsResult } from './repo-settings';
import { type RepositoriesConfig } from '../../infra/config/repository-section';
import type { FindingSeverity } from '../../workflows/contracts/findings';

export interface GitHubActivityDeps {
  identities: GitHubIdentities;
  /** Git on workspaces, inside their sandboxes (pushes); absent where this process holds none. */
  workspaceGit?: () => WorkspaceGit | undefined;
  /** The deployment's `repositories` section, merged with each repository's `.switchboard.yml`. */
  repositories?: RepositoriesConfig;
  /** `review.addressSeverity`: a repository's gate where neither its file nor the deployment sets one. */
  defaultSeverity?: FindingSeverity;
  /** The settings reader (one per process, so its per-commit cache is shared); built from the above when absent. */
  settings?: RepoSettingsReader;
}

/**
 * Every GitHub activity: reads, vetting, and the effect-keyed writes. Register the result
 * with the worker; workflows call them through `proxyActivities<GitHubActivities>()`.
 */
export function createGitHubActivities(deps: GitHubActivityDeps) {
  const settings =
    deps.settings ??
    createRepoSettingsReader({
      identities: deps.identities,
      ...(deps.repositories ? { repositories: deps.repositories } : {}),
      ...(deps.defaultSeverity ? { defaultSeverity: deps.defaultSeverity } : {}),
    });
  return {
    /** A repository's settings: its `.switchboard.yml` (read identity, cached per commit) and the deployment's, merged. */
    async repoSettings(input: { repo: string }): Promise<RepoSettingsResult> {
      return settings.read(input.repo);
    },
    ...createGitHubReadActivities(deps.identities),
    ...createRepositoryVetting(deps.identities),
    ...createPushBranch(deps.identities, deps.workspaceGit ?? (() => undefined)),
    ...createPullRequestWrites(deps.identities),
    ...createConversationWrites(deps.identities),
    ...createReviewThreadWrites(deps.identities),
    ...createIssueWrites(deps.identities),
  };
}

export type GitHubActivities = ReturnType<typeof createGitHubActivities>;

export { createGitHubIdentities, githubIdentitiesFromEnvironment, createOctokit, APP_PERMISSIONS } from './identity';
export type { GitHubIdentities, GitHubIdentityOptions, GitHubAppCredential } from './identity';
export { unitBranchName } from './push-branch';
export { effectMarker } from './effects';
export type { RepoSettingsResult, RepositorySettings, SettingsProblem } from './repo-settings';
export { createRepoSettingsReader, SETTINGS_FILE } from './repo-settings';
