import { Router, type Response } from 'express';
import { changedFiles, revParse } from './git-store';
import { commentJson, pull as pullJson, repository, reviewPayload, user } from './payloads';
import { login, now, record, repoOf, type RestContext } from './rest-context';
import { placeComment } from './rest-pulls';
import { type IssueState, type RepoState, type ReviewComment } from './state';

type Placed = Omit<ReviewComment, 'id' | 'user' | 'commitId' | 'reviewId'>;

/**
 * Review comments made one at a time, as GitHub's "Create a review comment" (`in_reply_to` for a
 * reply) and "Create a reply for a review comment" do: each is a single-comment review of its own
 * (state `COMMENTED`, empty body), and GitHub sends `pull_request_review_comment` `created` and
 * `pull_request_review` `submitted` for it. A reply joins the thread of a top-level comment of the
 * same pull request; GitHub does not support replies to replies, and refuses them here.
 */
export function reviewCommentRoutes(ctx: RestContext): Router {
  const router = Router();
  const pullOf = (repo: RepoState | undefined, number: unknown): IssueState | undefined => {
    const item = repo?.issues.get(Number(number));
    return item?.pull ? item : undefined;
  };

  /** The reply to `target` (a comment id), or the answer refusing it. */
  const reply = (res: Response, repo: RepoState, item: IssueState, target: unknown, body: unknown): void => {
    if (typeof body !== 'string' || !body.trim())
      return void res
        .status(422)
        .json({ message: 'Validation Failed', errors: [{ resource: 'PullRequestReviewComment', code: 'missing_field', field: 'body' }] });
    const root = item.reviewComments.find((comment) => comment.id === Number(target));
    if (!root) return void res.status(404).json({ message: 'Not Found' });
    if (root.inReplyTo !== undefined)
      return void res.status(422).json({
        message: 'Validation Failed',
        errors: [
          { resource: 'PullRequestReviewComment', code: 'invalid', field: 'in_reply_to', message: 'replies to replies are not supported' },
        ],
      });
    const { path, line, side, position, startLine, startSide } = root;
    const placed: Placed = { path, line, side, position, body, ...(startLine !== undefined ? { startLine, startSide } : {}) };
    res.status(201).json(commentJson(single(res, repo, item, placed, root.commitId, root.id)));
  };

  router.post('/repos/:owner/:repo/pulls/:number/comments', (req, res) => {
    const repo = repoOf(ctx, req, res);
    const item = pullOf(repo, req.params.number);
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    const body = req.body ?? {};
    // With `in_reply_to`, every parameter but `body` is ignored.
    if (body.in_reply_to !== undefined) return reply(res, repo, item, body.in_reply_to, body.body);
    if (typeof body.commit_id !== 'string' || !revParse(repo.dir, body.commit_id))
      return void res.status(422).json({
        message: 'Validation Failed',
        errors: [{ resource: 'PullRequestReviewComment', code: 'missing_field', field: 'commit_id' }],
      });
    const placed = placeComment(changedFiles(repo.dir, `refs/heads/${item.pull!.base}`, body.commit_id), body);
    if (typeof placed === 'string') return void res.status(422).json({ message: 'Unprocessable Entity', errors: [placed] });
    if (!placed.body.trim())
      return void res
        .status(422)
        .json({ message: 'Validation Failed', errors: [{ resource: 'PullRequestReviewComment', code: 'missing_field', field: 'body' }] });
    res.status(201).json(commentJson(single(res, repo, item, placed, body.commit_id)));
  });

  router.post('/repos/:owner/:repo/pulls/:number/comments/:comment_id/replies', (req, res) => {
    const repo = repoOf(ctx, req, res);
    const item = pullOf(repo, req.params.number);
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    reply(res, repo, item, req.params.comment_id, req.body?.body);
  });

  /** A comment made on its own: a single-comment review holding it, both announced as GitHub does. */
  function single(res: Response, repo: RepoState, item: IssueState, placed: Placed, commitId: string, inReplyTo?: number): ReviewComment {
    const author = login(res);
    const review = { id: ctx.state.id(), body: '', user: author, event: 'COMMENT', state: 'COMMENTED', commitId, submittedAt: now() };
    item.reviews.push(review);
    const comment: ReviewComment = {
      ...placed,
      id: ctx.state.id(),
      user: author,
      commitId,
      reviewId: review.id,
      ...(inReplyTo !== undefined ? { inReplyTo } : {}),
    };
    item.reviewComments.push(comment);
    item.updatedAt = now();
    record(ctx, res, { kind: 'review_comment.create', repo: `${repo.owner}/${repo.name}`, number: item.number, id: comment.id });
    ctx.webhooks.emit('pull_request_review_comment', {
      action: 'created',
      comment: { ...commentJson(comment), author_association: ctx.state.authorAssociation(repo, author) },
      pull_request: pullJson(ctx.webUrl, repo, item),
      repository: repository(ctx.webUrl, repo),
      sender: user(author),
    });
    ctx.webhooks.emit('pull_request_review', {
      action: 'submitted',
      review: reviewPayload(ctx.webUrl, repo, item, review),
      pull_request: pullJson(ctx.webUrl, repo, item),
      repository: repository(ctx.webUrl, repo),
      sender: user(author),
    });
    return comment;
  }

  return router;
}
