import { guarded, hasMarker, isRetry, refusalOrThrow, unconfirmed, withMarker } from './effects';
import { type GitHubIdentities } from './identity';
import { splitRepo } from './repo-name';
import type * as T from '../../workflows/contracts/github';

/** How many pages of a repository's newest issues (100 each) a new issue's marker is looked for in. */
export const ISSUE_PAGES_SEARCHED = 10;

/** Opening an issue (at-most-once) and changing one (repeatable). */
export function createIssueWrites(identities: GitHubIdentities) {
  return {
    /**
     * Opens an issue whose body carries the effect key's marker. Every attempt looks for an
     * issue with that marker first (a reset workflow repeats the write as a first attempt):
     * found is confirmed; not found after a lost result is `unconfirmed`, and no second issue
     * is opened.
     */
    async createIssue(input: T.CreateIssueInput): Promise<T.EffectResult> {
      const identity = input.identity ?? 'write';
      const where = splitRepo(input.repo);
      const gh = await identities.octokitFor(identity);
      const key = input.effectKey;
      const what = `open an issue in ${input.repo}`;
      return guarded(key, what, identity, async () => {
        // Newest first, at most ISSUE_PAGES_SEARCHED pages: a lost attempt was moments ago, and a
        // reset workflow's issue was opened since that workflow started.
        let pages = 0;
        const found = await gh.paginate(
          gh.rest.issues.listForRepo,
          { ...where, state: 'all', sort: 'created', direction: 'desc', per_page: 100 },
          (response, done) => {
            const hit = response.data.filter((issue) => !issue.pull_request && hasMarker(issue.body, key));
            if (hit.length > 0 || ++pages >= ISSUE_PAGES_SEARCHED) done();
            return hit;
          },
        );
        const [mine] = found;
        if (mine) return { status: 'confirmed', effectKey: key, number: mine.number, url: mine.html_url };
        if (isRetry(input.attempt)) return unconfirmed(key, what);
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
