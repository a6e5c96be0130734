import { guarded, hasMarker, isRetry, unconfirmed, withMarker } from './effects';
import { type GitHubIdentities } from './identity';
import { splitRepo } from './repo-name';
import type * as T from '../../workflows/contracts/github';

/** Threads read per page, and pages at most, when looking for one thread of a pull request. */
const THREADS_PER_PAGE = 100;
const THREAD_PAGES = 10;

const THREADS = `query($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: ${THREADS_PER_PAGE}, after: $after) {
        nodes { id isResolved comments(first: 1) { nodes { databaseId } } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
}`;
const RESOLVE = 'mutation($id: ID!) { resolveReviewThread(input: { threadId: $id }) { thread { id isResolved } } }';

interface ThreadsPage {
  repository: {
    pullRequest: {
      reviewThreads: {
        nodes: Array<{ id: string; isResolved: boolean; comments: { nodes: Array<{ databaseId: number }> } }>;
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
      };
    };
  };
}

/** GitHub's GraphQL answered with errors (HTTP 200): the first error's type and message. */
function graphqlRefusal(error: unknown): { type?: string; message: string } | undefined {
  const errors = (error as { name?: string; errors?: Array<{ type?: string; message: string }> })?.errors;
  return (error as { name?: string })?.name === 'GraphqlResponseError' && errors?.length ? errors[0] : undefined;
}

/** Replies on review threads and their resolution: the conversation a finding gets on its lines. */
export function createReviewThreadWrites(identities: GitHubIdentities) {
  return {
    /**
     * Replies in the thread that `inReplyTo` starts (at-most-once). Every attempt looks for its
     * marker among the pull request's review comments first (a reset workflow's first attempt
     * too); a retry that finds none is `unconfirmed` and does not post.
     */
    async replyToReviewComment(input: T.ReplyToReviewCommentInput): Promise<T.EffectResult> {
      const identity = input.identity ?? 'write';
      const where = { ...splitRepo(input.repo), pull_number: input.number };
      const gh = await identities.octokitFor(identity);
      const key = input.effectKey;
      const what = `reply on review comment ${input.inReplyTo} of #${input.number}`;
      return guarded(key, what, identity, async () => {
        const comments = await gh.paginate(gh.rest.pulls.listReviewComments, { ...where, per_page: 100 });
        const mine = comments.find((comment) => hasMarker(comment.body, key));
        const held = (review: number | null | undefined) => (review ? { reviewId: review } : {});
        if (mine)
          return {
            status: 'confirmed',
            effectKey: key,
            id: mine.id,
            number: input.number,
            url: mine.html_url,
            ...held(mine.pull_request_review_id),
          };
        if (isRetry(input.attempt)) return unconfirmed(key, what);
        const { data } = await gh.rest.pulls.createReplyForReviewComment({
          ...where,
          comment_id: input.inReplyTo,
          body: withMarker(input.body, key),
        });
        return {
          status: 'confirmed',
          effectKey: key,
          id: data.id,
          number: input.number,
          url: data.html_url,
          ...held(data.pull_request_review_id),
        };
      });
    },

    /**
     * Resolves the review thread that top-level comment `commentId` starts, through GitHub's GraphQL
     * API (REST has no such call). Repeatable: a resolved thread is confirmed as it is. GitHub
     * refuses a token without the Contents write permission (`forbidden`); a thread it cannot find
     * is `not_found`.
     */
    async resolveReviewThread(input: T.ResolveReviewThreadInput): Promise<T.EffectResult> {
      const identity = input.identity ?? 'write';
      const { owner, repo: name } = splitRepo(input.repo);
      const gh = await identities.octokitFor(identity);
      const key = input.effectKey;
      const what = `resolve the review thread of comment ${input.commentId} on #${input.number}`;
      return guarded(key, what, identity, async () => {
        try {
          let after: string | null = null;
          for (let pages = 0; pages < THREAD_PAGES; pages += 1) {
            const found: ThreadsPage = await gh.graphql<ThreadsPage>(THREADS, { owner, name, number: input.number, after });
            const { nodes, pageInfo } = found.repository.pullRequest.reviewThreads;
            const thread = nodes.find((node) => node.comments.nodes[0]?.databaseId === input.commentId);
            if (thread) {
              if (!thread.isResolved) await gh.graphql(RESOLVE, { id: thread.id });
              return { status: 'confirmed', effectKey: key, id: input.commentId, number: input.number };
            }
            if (!pageInfo.hasNextPage) break;
            after = pageInfo.endCursor;
          }
          return { status: 'refused', effectKey: key, code: 'not_found', reason: `cannot ${what}: no such thread` };
        } catch (error) {
          const refusal = graphqlRefusal(error);
          if (!refusal) throw error;
          const code = refusal.type === 'FORBIDDEN' ? 'forbidden' : refusal.type === 'NOT_FOUND' ? 'not_found' : 'invalid';
          const reason =
            code === 'forbidden'
              ? `GitHub refused to ${what} with the '${identity}' identity (${refusal.message}; resolving a thread needs the Contents write permission)`
              : `GitHub refused to ${what}: ${refusal.message}`;
          return { status: 'refused', effectKey: key, code, reason };
        }
      });
    },
  };
}
