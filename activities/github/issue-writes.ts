import { guarded, hasMarker, isRetry, refusalOrThrow, unconfirmed, withMarker } from './effects';
import { type GitHubIdentities } from './identity';
import { splitRepo } from './repo-name';
import type * as T from './types';

/** Opening an issue (at-most-once) and changing one (repeatable). */
export function createIssueWrites(identities: GitHubIdentities) {
  return {
    /**
     * Opens an issue whose body carries the effect key's marker. A retry looks for an issue
     * with that marker first: found is confirmed; not found after a lost result is
     * `unconfirmed`, and no second issue is opened.
     */
    async createIssue(input: T.CreateIssueInput): Promise<T.EffectResult> {
      const identity = input.identity ?? 'write';
      const where = splitRepo(input.repo);
      const gh = await identities.octokitFor(identity);
      const key = input.effectKey;
      const what = `open an issue in ${input.repo}`;
      return guarded(key, what, identity, async () => {
        if (isRetry(input.attempt)) {
          // Newest first: the lost attempt was moments ago, so it sits on the first page.
          const issues = await gh.paginate(gh.rest.issues.listForRepo, {
            ...where,
            state: 'all',
            sort: 'created',
            direction: 'desc',
            per_page: 100,
          });
          const mine = issues.find((issue) => !issue.pull_request && hasMarker(issue.body, key));
          if (mine) return { status: 'confirmed', effectKey: key, number: mine.number, url: mine.html_url };
          return unconfirmed(key, what);
        }
        const { data } = await gh.rest.issues.create({
          ...where,
          title: input.title,
          body: withMarker(input.body, key),
          ...(input.labels ? { labels: input.labels } : {}),
        });
        return { status: 'confirmed', effectKey: key, number: data.number, url: data.html_url };
      });
    },

    /** Sets the given fields of an issue (repeatable: the same change twice is the same issue). */
    async updateIssue(input: T.UpdateIssueInput): Promise<T.EffectResult> {
      const identity = input.identity ?? 'write';
      const gh = await identities.octokitFor(identity);
      const fields = {
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.body !== undefined ? { body: input.body } : {}),
        ...(input.state !== undefined ? { state: input.state } : {}),
        ...(input.labels !== undefined ? { labels: input.labels } : {}),
      };
      try {
        const { data } = await gh.rest.issues.update({ ...splitRepo(input.repo), issue_number: input.number, ...fields });
        return { status: 'confirmed', effectKey: input.effectKey, number: data.number, url: data.html_url };
      } catch (error) {
        return refusalOrThrow(error, input.effectKey, `update issue #${input.number}`, identity);
      }
    },
  };
}
