import { guarded, hasMarker, isRetry, refusalOrThrow, unconfirmed, withMarker } from './effects';
import { type GitHubIdentities } from './identity';
import { headMoved } from './pull-request-writes';
import { splitRepo } from './repo-name';
import { anchorComments } from './diff-anchors';
import { httpStatusOf } from './failures';
import type * as T from '../../workflows/contracts/github';

/** A comment as GitHub's review API takes it: on its line and side, and from its start line when it spans several. */
function lineComment(comment: T.ReviewLineComment) {
  const side = comment.side ?? 'RIGHT';
  return {
    path: comment.path,
    line: comment.line,
    side,
    body: comment.body,
    ...(comment.startLine !== undefined ? { start_line: comment.startLine, start_side: side } : {}),
  };
}

/** The body with the comments that could not sit on their lines, each as its `fallback` (or its text). */
function withOutside(body: string, outside: readonly T.ReviewLineComment[]): string {
  if (outside.length === 0) return body;
  const items = outside.map((comment) => comment.fallback ?? `- \`${comment.path}:${comment.line}\` — ${comment.body}`);
  return `${body.trimEnd()}\n\n**Outside the diff**\n\n${items.join('\n')}`;
}

/** Reviews, comments and labels on a pull request or issue. */
export function createConversationWrites(identities: GitHubIdentities) {
  return {
    /**
     * Posts a review to the exact PR and commit that was reviewed (at-most-once). Every
     * attempt looks for its marker before anything else: a retry, because the head may
     * legitimately have moved after the first attempt posted; a first attempt too, because the
     * key names the commit (`…/review/<sha>`) and a workflow that asks again for a commit it
     * already reviewed must get that review back, never a second one.
     */
    async postReview(input: T.PostReviewInput): Promise<T.EffectResult> {
      const identity = input.identity ?? 'write';
      const where = { ...splitRepo(input.repo), pull_number: input.number };
      const gh = await identities.octokitFor(identity);
      const key = input.effectKey;
      return guarded(key, `post a review on #${input.number}`, identity, async () => {
        const reviews = await gh.paginate(gh.rest.pulls.listReviews, { ...where, per_page: 100 });
        const mine = reviews.find((r) => hasMarker(r.body, key));
        if (mine)
          return {
            status: 'confirmed',
            effectKey: key,
            id: mine.id,
            number: input.number,
            sha: mine.commit_id ?? undefined,
            url: mine.html_url,
          };
        if (isRetry(input.attempt)) return unconfirmed(key, `post the review of #${input.number}`);
        const { data: pr } = await gh.rest.pulls.get(where);
        if (pr.head.sha !== input.commitSha) return headMoved(key, input.number, input.commitSha, pr.head.sha);
        // Each comment goes on its lines when they are in the diff; the others are said in the body.
        const files = input.comments?.length ? await gh.paginate(gh.rest.pulls.listFiles, { ...where, per_page: 100 }) : [];
        const { inline, outside } = anchorComments(
          files.map((file) => ({ path: file.filename, ...(file.patch ? { patch: file.patch } : {}) })),
          input.comments ?? [],
        );
        const create = (onLines: typeof inline, inBody: typeof outside) =>
          gh.rest.pulls.createReview({
            ...where,
            commit_id: input.commitSha,
            event: input.event,
            body: withMarker(withOutside(input.body, inBody), key),
            ...(onLines.length ? { comments: onLines.map(lineComment) } : {}),
          });
        let placed = inline.length;
        let created;
        try {
          created = await create(inline, outside);
        } catch (error) {
          // GitHub refused a comment's lines (422: nothing was written): the whole review goes in its body.
          if (httpStatusOf(error) !== 422 || inline.length === 0) throw error;
          placed = 0;
          created = await create([], [...inline, ...outside]);
        }
        const { data } = created;
        return {
          status: 'confirmed',
          effectKey: key,
          id: data.id,
          number: input.number,
          sha: data.commit_id ?? undefined,
          url: data.html_url,
          inline: placed,
        };
      });
    },

    /**
     * Posts a comment on an issue or PR (at-most-once). Every attempt looks for its marker first,
     * the first one too: a workflow reset (`temporal workflow reset`) replays the write as a first
     * attempt under the same key, and must find the comment it posted before, not post another.
     */
    async postComment(input: T.PostCommentInput): Promise<T.EffectResult> {
      const identity = input.identity ?? 'write';
      const where = { ...splitRepo(input.repo), issue_number: input.number };
      const gh = await identities.octokitFor(identity);
      const key = input.effectKey;
      return guarded(key, `comment on #${input.number}`, identity, async () => {
        const comments = await gh.paginate(gh.rest.issues.listComments, { ...where, per_page: 100 });
        const mine = comments.find((c) => hasMarker(c.body, key));
        if (mine) return { status: 'confirmed', effectKey: key, id: mine.id, number: input.number, url: mine.html_url };
        if (isRetry(input.attempt)) return unconfirmed(key, `comment on #${input.number}`);
        const { data } = await gh.rest.issues.createComment({ ...where, body: withMarker(input.body, key) });
        return { status: 'confirmed', effectKey: key, id: data.id, number: input.number, url: data.html_url };
      });
    },

    /** Replaces a comment's body (repeatable: the same body twice is the same comment). */
    async updateComment(input: T.UpdateCommentInput): Promise<T.EffectResult> {
      const identity = input.identity ?? 'write';
      const gh = await identities.octokitFor(identity);
      try {
        const { data } = await gh.rest.issues.updateComment({
          ...splitRepo(input.repo),
          comment_id: input.commentId,
          body: withMarker(input.body, input.effectKey),
        });
        return { status: 'confirmed', effectKey: input.effectKey, id: data.id, url: data.html_url };
      } catch (error) {
        return refusalOrThrow(error, input.effectKey, `update comment ${input.commentId}`, identity);
      }
    },

    /** Sets the labels to exactly this list (repeatable). */
    async setLabels(input: T.SetLabelsInput): Promise<T.EffectResult> {
      const identity = input.identity ?? 'write';
      const gh = await identities.octokitFor(identity);
      try {
        await gh.rest.issues.setLabels({ ...splitRepo(input.repo), issue_number: input.number, labels: input.labels });
        return { status: 'confirmed', effectKey: input.effectKey, number: input.number };
      } catch (error) {
        return refusalOrThrow(error, input.effectKey, `set labels on #${input.number}`, identity);
      }
    },
  };
}
