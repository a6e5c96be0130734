import { Router } from 'express';
import { changedFiles, git, revParse } from './git-store';
import { commentJson, headSha, pull as pullJson, repository, reviewPayload, user } from './payloads';
import { login, now, page, record, repoOf, type RestContext } from './rest-context';
import { type IssueState, type RepoState, type Review, type ReviewComment } from './state';
import { diffLines, inDiff, lineAtPosition, suggestionOf, type DiffSide } from './diff-positions';
import { closedIssueNumbers } from './closing-keywords';
import { itemEvent } from './rest-issue-events';

/** Pull requests, their files, reviews, review comments, and merging. */
export function pullRoutes(ctx: RestContext): Router {
  const router = Router();
  const pullOf = (repo: RepoState | undefined, number: unknown): IssueState | undefined => {
    const item = repo?.issues.get(Number(number));
    return item?.pull ? item : undefined;
  };
  const event = (action: string, repo: RepoState, item: IssueState, sender: string) =>
    ctx.webhooks.emit('pull_request', {
      action,
      number: item.number,
      pull_request: pullJson(ctx.webUrl, repo, item),
      repository: repository(ctx.webUrl, repo),
      sender: user(sender),
    });
  const reviewJson = (repo: RepoState, item: IssueState, r: Review) => reviewPayload(ctx.webUrl, repo, item, r);

  router.get('/repos/:owner/:repo/pulls', (req, res) => {
    const repo = repoOf(ctx, req, res);
    if (!repo) return;
    const state = typeof req.query.state === 'string' ? req.query.state : 'open';
    const head = typeof req.query.head === 'string' ? req.query.head : undefined;
    const items = [...repo.issues.values()]
      .filter((i) => i.pull && (state === 'all' || i.state === state))
      .filter((i) => !head || `${repo.owner}:${i.pull!.head}` === head || i.pull!.head === head)
      .sort((a, b) => b.number - a.number)
      .map((i) => pullJson(ctx.webUrl, repo, i));
    page(req, res, items);
  });

  router.post('/repos/:owner/:repo/pulls', (req, res) => {
    const repo = repoOf(ctx, req, res);
    if (!repo) return;
    const { head, base, title, body, draft } = req.body ?? {};
    const headRef = typeof head === 'string' ? head.replace(/^[^:]+:/, '') : '';
    if (!headRef || typeof base !== 'string' || typeof title !== 'string')
      return void res.status(422).json({ message: 'Validation Failed' });
    if (!revParse(repo.dir, `refs/heads/${headRef}`) || !revParse(repo.dir, `refs/heads/${base}`)) {
      return void res.status(422).json({ message: 'Validation Failed', errors: [{ field: 'head', code: 'invalid' }] });
    }
    const open = [...repo.issues.values()].find((i) => i.pull && i.state === 'open' && i.pull.head === headRef && i.pull.base === base);
    if (open) return void res.status(422).json({ message: `A pull request already exists for ${repo.owner}:${headRef}.` });
    const item: IssueState = {
      number: repo.nextNumber++,
      title,
      body: typeof body === 'string' ? body : '',
      state: 'open',
      labels: [],
      assignees: [],
      user: login(res),
      createdAt: now(),
      updatedAt: now(),
      comments: [],
      reviews: [],
      reviewComments: [],
      pull: { head: headRef, base, draft: Boolean(draft), merged: false },
    };
    repo.issues.set(item.number, item);
    record(ctx, res, { kind: 'pull_request.create', repo: `${repo.owner}/${repo.name}`, number: item.number });
    event('opened', repo, item, item.user);
    res.status(201).json(pullJson(ctx.webUrl, repo, item));
  });

  router.get('/repos/:owner/:repo/pulls/:number', (req, res) => {
    const repo = repoOf(ctx, req, res);
    const item = pullOf(repo, req.params.number);
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    res.json(pullJson(ctx.webUrl, repo, item));
  });

  router.patch('/repos/:owner/:repo/pulls/:number', (req, res) => {
    const repo = repoOf(ctx, req, res);
    const item = pullOf(repo, req.params.number);
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    if (typeof req.body?.title === 'string') item.title = req.body.title;
    if (typeof req.body?.body === 'string') item.body = req.body.body;
    if (req.body?.state === 'closed' || req.body?.state === 'open') item.state = req.body.state;
    item.updatedAt = now();
    record(ctx, res, { kind: 'pull_request.update', repo: `${repo.owner}/${repo.name}`, number: item.number });
    res.json(pullJson(ctx.webUrl, repo, item));
  });

  router.get('/repos/:owner/:repo/pulls/:number/files', (req, res) => {
    const repo = repoOf(ctx, req, res);
    const item = pullOf(repo, req.params.number);
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    page(req, res, changedFiles(repo.dir, `refs/heads/${item.pull!.base}`, headSha(repo, item)));
  });

  router.get('/repos/:owner/:repo/pulls/:number/reviews', (req, res) => {
    const repo = repoOf(ctx, req, res);
    const item = pullOf(repo, req.params.number);
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    page(
      req,
      res,
      item.reviews.map((r) => reviewJson(repo, item, r)),
    );
  });

  router.post('/repos/:owner/:repo/pulls/:number/reviews', (req, res) => {
    const repo = repoOf(ctx, req, res);
    const item = pullOf(repo, req.params.number);
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    const commitId = typeof req.body?.commit_id === 'string' ? req.body.commit_id : headSha(repo, item);
    if (!revParse(repo.dir, commitId))
      return void res.status(422).json({ message: 'Validation Failed: commit_id is not part of the pull request' });
    const states: Record<string, string> = { APPROVE: 'APPROVED', REQUEST_CHANGES: 'CHANGES_REQUESTED', COMMENT: 'COMMENTED' };
    // Every comment must sit on the diff, as GitHub checks before it writes anything (422 otherwise).
    const files = changedFiles(repo.dir, `refs/heads/${item.pull!.base}`, commitId);
    const anchored: Array<Omit<ReviewComment, 'id' | 'user' | 'commitId' | 'reviewId'>> = [];
    for (const c of Array.isArray(req.body?.comments) ? req.body.comments : []) {
      const placed = placeComment(files, c);
      if (typeof placed === 'string')
        return void res.status(422).json({ message: 'Unprocessable Entity', errors: [placed], documentation_url: 'local' });
      anchored.push(placed);
    }
    const review: Review = {
      id: ctx.state.id(),
      body: String(req.body?.body ?? ''),
      user: login(res),
      event: String(req.body?.event ?? 'COMMENT'),
      state: states[String(req.body?.event ?? 'COMMENT')] ?? 'PENDING',
      commitId,
      submittedAt: now(),
    };
    item.reviews.push(review);
    const added: ReviewComment[] = [];
    for (const placed of anchored) {
      const comment: ReviewComment = { ...placed, id: ctx.state.id(), user: review.user, commitId, reviewId: review.id };
      item.reviewComments.push(comment);
      added.push(comment);
    }
    record(ctx, res, { kind: 'review.create', repo: `${repo.owner}/${repo.name}`, number: item.number, id: review.id });
    // As GitHub does: each comment of the review is a `pull_request_review_comment` event of its own.
    for (const comment of added)
      ctx.webhooks.emit('pull_request_review_comment', {
        action: 'created',
        comment: { ...commentJson(comment), author_association: ctx.state.authorAssociation(repo, comment.user) },
        pull_request: pullJson(ctx.webUrl, repo, item),
        repository: repository(ctx.webUrl, repo),
        sender: user(comment.user),
      });
    ctx.webhooks.emit('pull_request_review', {
      action: 'submitted',
      review: reviewJson(repo, item, review),
      pull_request: pullJson(ctx.webUrl, repo, item),
      repository: repository(ctx.webUrl, repo),
      sender: user(review.user),
    });
    res.json(reviewJson(repo, item, review));
  });

  router.get('/repos/:owner/:repo/pulls/:number/comments', (req, res) => {
    const repo = repoOf(ctx, req, res);
    const item = pullOf(repo, req.params.number);
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    page(req, res, item.reviewComments.map(commentJson));
  });

  // Asking people (or the App's bot user) for a review: `pull_request` `review_requested`, one event per reviewer.
  router.post('/repos/:owner/:repo/pulls/:number/requested_reviewers', (req, res) => {
    const repo = repoOf(ctx, req, res);
    const item = pullOf(repo, req.params.number);
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    const reviewers: unknown = req.body?.reviewers;
    if (!Array.isArray(reviewers) || !reviewers.every((r) => typeof r === 'string'))
      return void res.status(422).json({ message: 'Validation Failed' });
    const before = item.pull!.requestedReviewers ?? [];
    item.pull!.requestedReviewers = [...new Set([...before, ...reviewers])];
    record(ctx, res, { kind: 'reviewers.request', repo: `${repo.owner}/${repo.name}`, number: item.number });
    for (const reviewer of reviewers.filter((r) => !before.includes(r)))
      ctx.webhooks.emit('pull_request', {
        action: 'review_requested',
        number: item.number,
        pull_request: pullJson(ctx.webUrl, repo, item),
        requested_reviewer: user(reviewer),
        repository: repository(ctx.webUrl, repo),
        sender: user(login(res)),
      });
    res.status(201).json(pullJson(ctx.webUrl, repo, item));
  });

  router.put('/repos/:owner/:repo/pulls/:number/merge', (req, res) => {
    const repo = repoOf(ctx, req, res);
    const item = pullOf(repo, req.params.number);
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    const pr = item.pull!;
    if (pr.merged || item.state !== 'open') return void res.status(405).json({ message: 'Pull Request is not mergeable' });
    const head = headSha(repo, item);
    if (typeof req.body?.sha === 'string' && req.body.sha !== head)
      return void res.status(409).json({ message: 'Head branch was modified. Review and try the merge again.' });
    const base = revParse(repo.dir, `refs/heads/${pr.base}`)!;
    const message = [req.body?.commit_title ?? `${item.title} (#${item.number})`, req.body?.commit_message ?? ''].join('\n\n');
    // A squash: the head's tree as one commit on the base.
    const merged = git(repo.dir, ['commit-tree', `${head}^{tree}`, '-p', base, '-m', message]).trim();
    git(repo.dir, ['update-ref', `refs/heads/${pr.base}`, merged, base]);
    Object.assign(pr, { merged: true, mergedHeadSha: head, mergeCommitSha: merged });
    item.state = 'closed';
    item.updatedAt = now();
    record(ctx, res, { kind: 'pull_request.merge', repo: `${repo.owner}/${repo.name}`, number: item.number });
    event('closed', repo, item, login(res));
    // Merged into the default branch, its body's `Fixes #n` closes those issues, as GitHub does.
    if (pr.base === repo.defaultBranch)
      for (const number of closedIssueNumbers(item.body)) {
        const issue = repo.issues.get(number);
        if (!issue || issue.pull || issue.state !== 'open') continue;
        issue.state = 'closed';
        issue.stateReason = 'completed';
        issue.updatedAt = now();
        itemEvent(ctx, repo, issue, 'closed', login(res), {});
      }
    res.json({ sha: merged, merged: true, message: 'Pull Request successfully merged' });
  });

  return router;
}

/**
 * Where one comment of a new review goes, or GitHub's reason for refusing it: its path must be
 * a file of the pull request, and its line (or legacy position) part of that file's diff on its
 * side; a multi-line comment's start too, before its end and on the same side.
 */
export function placeComment(
  files: Array<{ filename: string; patch: string }>,
  c: Record<string, unknown>,
): Omit<ReviewComment, 'id' | 'user' | 'commitId' | 'reviewId'> | string {
  const path = typeof c?.path === 'string' ? c.path : '';
  const body = typeof c?.body === 'string' ? c.body : '';
  const file = files.find((f) => f.filename === path);
  if (!file) return 'Path could not be resolved';
  let side: DiffSide = c.side === 'LEFT' ? 'LEFT' : 'RIGHT';
  let line = Number(c.line);
  if (c.line === undefined && c.position !== undefined) {
    const at = lineAtPosition(file.patch, Number(c.position));
    if (!at) return 'Pull request review thread position is invalid';
    ({ side, line } = at);
  }
  if (!Number.isInteger(line) || !inDiff(file.patch, side, line)) return 'Pull request review thread line must be part of the diff';
  const at = diffLines(file.patch).find((entry) => entry.side === side && entry.line === line)!;
  const position = at.position;
  let startLine: number | undefined;
  let startSide: DiffSide | undefined;
  if (c.start_line !== undefined && c.start_line !== null) {
    startLine = Number(c.start_line);
    startSide = c.start_side === 'LEFT' ? 'LEFT' : c.start_side === 'RIGHT' ? 'RIGHT' : side;
    if (!Number.isInteger(startLine) || !inDiff(file.patch, startSide, startLine))
      return 'Pull request review thread start line must be part of the diff';
    if (startSide === side && startLine >= line) return 'Pull request review thread start_line must precede line';
    const start = diffLines(file.patch).find((entry) => entry.side === startSide && entry.line === startLine)!;
    if (start.hunk !== at.hunk) return 'Pull request review thread start line and line must be in the same hunk';
  }
  const suggestion = suggestionOf(body);
  return {
    path,
    body,
    line,
    side,
    position,
    ...(startLine !== undefined ? { startLine, startSide } : {}),
    ...(suggestion !== undefined ? { suggestion } : {}),
  };
}
