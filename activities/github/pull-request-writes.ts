import { effectMarker, guarded, hasMarker, isRetry, withMarker } from './effects';
import { httpStatusOf } from './failures';
import { type GitHubIdentities } from './identity';
import { splitRepo } from './repo-name';
import type { EffectResult, MergePullRequestInput, OpenPullRequestInput } from '../../workflows/contracts/github';

/** Opening/updating a pull request and merging one: both guarded by GitHub itself, so both repeatable. */
export function createPullRequestWrites(identities: GitHubIdentities) {
  return {
    /**
     * Opens the PR for `head`, or updates the open one. Repeatable, so never `unconfirmed`:
     * GitHub keeps one open PR per head and base (a second is refused with 422), so a retry that
     * finds no open PR for its head opens it now, and one whose earlier attempt landed meanwhile
     * finds it. Only a PR of ours that was closed since is not opened again (`refused`): a person
     * closed it. (Treating the open as at-most-once lost units to a worker kill for nothing.)
     */
    async openOrUpdatePullRequest(input: OpenPullRequestInput): Promise<EffectResult> {
      const identity = input.identity ?? 'write';
      const key = input.effectKey;
      const where = splitRepo(input.repo);
      const gh = await identities.octokitFor(identity);
      const what = `open a pull request for ${input.head}`;
      return guarded(key, what, identity, async () => {
        const body = withMarker(input.body, key);
        const open = await gh.paginate(gh.rest.pulls.list, {
          ...where,
          state: 'open',
          head: `${where.owner}:${input.head}`,
          per_page: 100,
        });
        const existing =
          open.find((pr) => pr.head.ref === input.head && pr.base.ref === input.base) ?? open.find((pr) => pr.head.ref === input.head);
        if (existing && hasMarker(existing.body, key)) {
          return { status: 'confirmed', effectKey: key, number: existing.number, url: existing.html_url, sha: existing.head.sha };
        }
        if (existing) {
          // Updating title and body is repeatable, so it is safe on any attempt.
          const { data } = await gh.rest.pulls.update({ ...where, pull_number: existing.number, title: input.title, body });
          return { status: 'confirmed', effectKey: key, number: data.number, url: data.html_url, sha: data.head.sha };
        }
        // Every attempt (a reset workflow's first one too): a PR of ours for this head that a person closed stays closed.
        const closed = await gh.paginate(gh.rest.pulls.list, {
          ...where,
          state: 'closed',
          head: `${where.owner}:${input.head}`,
          per_page: 100,
        });
        const ours = closed.find((pr) => hasMarker(pr.body, key));
        if (ours)
          return {
            status: 'refused',
            effectKey: key,
            code: 'invalid',
            reason: `pull request #${ours.number} for ${input.head} was opened and has been closed since; it is not opened again`,
            number: ours.number,
          };
        try {
          const { data } = await gh.rest.pulls.create({
            ...where,
            head: input.head,
            base: input.base,
            title: input.title,
            body,
            draft: input.draft,
          });
          return { status: 'confirmed', effectKey: key, number: data.number, url: data.html_url, sha: data.head.sha };
        } catch (error) {
          // An earlier attempt's request landed after this attempt looked: GitHub refuses the second.
          if (httpStatusOf(error) !== 422) throw error;
          const [landed] = await gh.paginate(gh.rest.pulls.list, {
            ...where,
            state: 'open',
            head: `${where.owner}:${input.head}`,
            per_page: 100,
          });
          if (!landed || landed.base.ref !== input.base) throw error;
          return { status: 'confirmed', effectKey: key, number: landed.number, url: landed.html_url, sha: landed.head.sha };
        }
      });
    },

    /**
     * Merges only the head that was approved (`expectedHeadSha`). Repeatable, so never
     * `unconfirmed`: GitHub merges a given head once (`sha` makes it refuse a moved head with
     * 409, and a second merge with 405), so a retry after a lost result either finds the PR
     * merged at that head (confirmed) or merges it now. Only a PR merged at another head, or by
     * someone else before our first attempt, is refused.
     */
    async mergePullRequest(input: MergePullRequestInput): Promise<EffectResult> {
      const identity = input.identity ?? 'write';
      const where = { ...splitRepo(input.repo), pull_number: input.number };
      const gh = await identities.octokitFor(identity);
      const key = input.effectKey;
      const what = `merge pull request #${input.number}`;
      /** The merge commit carries our marker: this effect merged it (an earlier attempt, or a reset workflow's earlier run). */
      const mergedByUs = async (sha: string | null): Promise<boolean> => {
        if (!sha) return false;
        const { data } = await gh.rest.git.getCommit({ ...splitRepo(input.repo), commit_sha: sha });
        return hasMarker(data.message, key);
      };
      const mergedAlready = async (pr: {
        merged: boolean;
        number: number;
        html_url: string;
        head: { sha: string };
        merge_commit_sha: string | null;
      }) => {
        if (pr.head.sha === input.expectedHeadSha && (isRetry(input.attempt) || (await mergedByUs(pr.merge_commit_sha)))) {
          return {
            status: 'confirmed',
            effectKey: key,
            number: pr.number,
            url: pr.html_url,
            sha: pr.merge_commit_sha ?? undefined,
          } as const;
        }
        return {
          status: 'refused',
          effectKey: key,
          code: 'already_merged',
          reason: `pull request #${pr.number} is already merged`,
          number: pr.number,
        } as const;
      };
      return guarded(key, what, identity, async () => {
        const { data: pr } = await gh.rest.pulls.get(where);
        if (pr.merged) return mergedAlready(pr);
        if (pr.head.sha !== input.expectedHeadSha) return headMoved(key, input.number, input.expectedHeadSha, pr.head.sha);
        try {
          const { data } = await gh.rest.pulls.merge({
            ...where,
            sha: input.expectedHeadSha,
            merge_method: input.method ?? 'squash',
            commit_title: input.title,
            commit_message: effectMarker(key),
          });
          return { status: 'confirmed', effectKey: key, number: input.number, sha: data.sha, url: pr.html_url };
        } catch (error) {
          const status = httpStatusOf(error);
          if (status === 409) return headMoved(key, input.number, input.expectedHeadSha, 'a newer commit');
          if (status === 405) {
            // An earlier attempt's request may have landed after this attempt read the PR.
            const { data: now } = await gh.rest.pulls.get(where);
            if (now.merged) return mergedAlready(now);
            return {
              status: 'refused',
              effectKey: key,
              code: 'not_mergeable',
              reason: `GitHub says #${input.number} cannot be merged: ${(error as Error).message}`,
            };
          }
          throw error;
        }
      });
    },
  };
}

export function headMoved(effectKey: string, number: number, expected: string, actual: string): EffectResult {
  return {
    status: 'refused',
    effectKey,
    code: 'head_moved',
    number,
    reason: `pull request #${number} moved from ${expected.slice(0, 12)} to ${actual.slice(0, 12)}; nothing was written`,
  };
}
