import { type PushPolicy } from '../sandbox/network/receive-pack';
import { narrowPushRules, type PushRules } from '../sandbox/network/push-rules';
import { type GitHubIdentities } from './identity';
import { type RepoSettingsReader } from './repo-settings';
import { splitRepo } from './repo-name';

/**
 * The rules the sandbox's door judges pushes by: the deployment's `github.pushes`, narrowed by
 * the repository's settings (its `.switchboard.yml` on the default branch, which no run can push
 * to, and `repositories.<owner/name>.pushes`), and a look at the pull request a unit or run was
 * admitted to before its branch is updated. Every answer GitHub cannot give refuses the push:
 * the door fails closed.
 */
export function createPushPolicy(deps: {
  rules: PushRules;
  settings: Pick<RepoSettingsReader, 'read'>;
  identities: Pick<GitHubIdentities, 'octokitFor'>;
}): PushPolicy {
  return {
    async rules(repo) {
      // GitHub's silence is thrown by the reader: the door refuses the push rather than guess the repository's word.
      const read = await deps.settings.read(repo);
      return narrowPushRules(deps.rules, read.settings.pushes);
    },
    async pullRequestRefusal(repo, number, branch) {
      const ref = `refs/heads/${branch}`;
      try {
        const gh = await deps.identities.octokitFor('read');
        const { data: pr } = await gh.rest.pulls.get({ ...splitRepo(repo), pull_number: number });
        if (pr.state !== 'open')
          return `${ref}: pull request #${number} is ${pr.merged ? 'merged' : 'closed'}, so its branch is no longer pushed to`;
        if (pr.head.ref !== branch || pr.head.repo?.full_name?.toLowerCase() !== repo.toLowerCase())
          return `${ref} is no longer pull request #${number}'s branch in ${repo}`;
        if (pr.base.repo.default_branch === branch)
          return `${ref} is ${repo}'s default branch: a run never pushes to it, even as a pull request's branch`;
        const { data: found } = await gh.rest.repos.getBranch({ ...splitRepo(repo), branch });
        if (found.protected) return `${ref} is a protected branch: a run never pushes to it`;
        return undefined;
      } catch (error) {
        return `${ref}: GitHub did not say whether pull request #${number} may still be pushed to (${(error as Error).message})`;
      }
    },
  };
}
