import { httpStatusOf, isUnknownOutcome, rateLimitDelayMs } from './failures';
import { type GitHubIdentities } from './identity';
import { splitRepo } from './repo-name';
import type { VetRepositoryInput, VetRepositoryResult } from '../../workflows/contracts/github';

/**
 * Vets a bare `owner/name` with exactly one `GET /repos/{owner}/{repo}` on the run's own read
 * credential. Never retried inside: the answer goes back to the caller as data.
 */
export function createRepositoryVetting(identities: GitHubIdentities) {
  return {
    async vetRepository(input: VetRepositoryInput): Promise<VetRepositoryResult> {
      const scope = input.identity ?? 'read';
      const gh = await identities.octokitFor(scope).catch((error: unknown) => {
        // No credential for the scope: nothing can confirm the repository, so it is not run on (fail closed).
        if ((error as { type?: string }).type === 'github_no_credential') return undefined;
        throw error;
      });
      if (!gh) {
        return {
          ok: false,
          repo: input.repo,
          code: 'repo_unverified',
          reason: `GitHub could not be asked about ${input.repo}: no credential is configured for the '${scope}' identity`,
        };
      }
      try {
        const { data } = await gh.rest.repos.get(splitRepo(input.repo));
        return { ok: true, repo: data.full_name, defaultBranch: data.default_branch, private: data.private };
      } catch (error) {
        const status = httpStatusOf(error);
        if (rateLimitDelayMs(error) === undefined && (status === 404 || status === 403 || status === 401)) {
          return {
            ok: false,
            repo: input.repo,
            code: 'repo_not_visible',
            reason: `${input.repo} is not visible to this run's GitHub identity (HTTP ${status})`,
          };
        }
        const why = isUnknownOutcome(error) ? (status ? `HTTP ${status}` : (error as Error).message) : `HTTP ${status}`;
        return { ok: false, repo: input.repo, code: 'repo_unverified', reason: `GitHub did not confirm ${input.repo} (${why})` };
      }
    },
  };
}
