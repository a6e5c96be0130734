import { Router } from 'express';
import { issue as issueJson, repository, user } from './payloads';
import { login, now, page, record, repoOf, type RestContext } from './rest-context';
import { type Comment, type IssueState } from './state';
import { itemEvent, labelEvents } from './rest-issue-events';

/** Issues, their comments and labels (pull requests are issues too). */
export function issueRoutes(ctx: RestContext): Router {
  const router = Router();
  const commentJson = (repoPath: string, issueNumber: number, c: Comment) => ({
    id: c.id,
    body: c.body,
    user: user(c.user),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    html_url: `${ctx.webUrl}/${repoPath}/issues/${issueNumber}#issuecomment-${c.id}`,
  });

  router.get('/repos/:owner/:repo/issues', (req, res) => {
    const repo = repoOf(ctx, req, res);
    if (!repo) return;
    const state = typeof req.query.state === 'string' ? req.query.state : 'open';
    const labels = typeof req.query.labels === 'string' && req.query.labels ? req.query.labels.split(',') : [];
    const items = [...repo.issues.values()]
      .filter((i) => state === 'all' || i.state === state)
      .filter((i) => labels.every((l) => i.labels.includes(l)))
      .sort((a, b) => b.number - a.number)
      .map((i) => issueJson(ctx.webUrl, repo, i));
    page(req, res, items);
  });

  router.get('/repos/:owner/:repo/issues/:number', (req, res) => {
    const repo = repoOf(ctx, req, res);
    const item = repo?.issues.get(Number(req.params.number));
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    res.json(issueJson(ctx.webUrl, repo, item));
  });

  router.get('/repos/:owner/:repo/issues/:number/comments', (req, res) => {
    const repo = repoOf(ctx, req, res);
    const item = repo?.issues.get(Number(req.params.number));
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    page(
      req,
      res,
      item.comments.map((c) => commentJson(`${repo.owner}/${repo.name}`, item.number, c)),
    );
  });

  router.post('/repos/:owner/:repo/issues/:number/comments', (req, res) => {
    const repo = repoOf(ctx, req, res);
    const item = repo?.issues.get(Number(req.params.number));
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    if (typeof req.body?.body !== 'string') return void res.status(422).json({ message: 'Validation Failed' });
    const comment: Comment = { id: ctx.state.id(), body: req.body.body, user: login(res), createdAt: now(), updatedAt: now() };
    item.comments.push(comment);
    const repoPath = `${repo.owner}/${repo.name}`;
    record(ctx, res, { kind: 'comment.create', repo: repoPath, number: item.number, id: comment.id });
    ctx.webhooks.emit('issue_comment', {
      action: 'created',
      issue: issueJson(ctx.webUrl, repo, item),
      comment: { ...commentJson(repoPath, item.number, comment), author_association: ctx.state.authorAssociation(repo, comment.user) },
      repository: repository(ctx.webUrl, repo),
      sender: user(comment.user),
    });
    res.status(201).json(commentJson(repoPath, item.number, comment));
  });

  router.patch('/repos/:owner/:repo/issues/comments/:id', (req, res) => {
    const repo = repoOf(ctx, req, res);
    if (!repo) return;
    const found = ctx.state.findComment(repo, Number(req.params.id));
    if (!found) return void res.status(404).json({ message: 'Not Found' });
    if (typeof req.body?.body !== 'string') return void res.status(422).json({ message: 'Validation Failed' });
    found.comment.body = req.body.body;
    found.comment.updatedAt = now();
    record(ctx, res, { kind: 'comment.update', repo: `${repo.owner}/${repo.name}`, number: found.issue.number, id: found.comment.id });
    res.json(commentJson(`${repo.owner}/${repo.name}`, found.issue.number, found.comment));
  });

  // A reaction on an issue comment or a PR review comment: 201 when new, 200 with the same
  // reaction when this user already gave it (GitHub's own repeatable answer).
  const REACTIONS = new Set(['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes']);
  for (const kind of ['issues', 'pulls'] as const) {
    router.post(`/repos/:owner/:repo/${kind}/comments/:id/reactions`, (req, res) => {
      const repo = repoOf(ctx, req, res);
      if (!repo) return;
      const id = Number(req.params.id);
      const found =
        kind === 'issues'
          ? ctx.state.findComment(repo, id)
          : [...repo.issues.values()]
              .flatMap((i) => i.reviewComments.map((c) => ({ issue: i, comment: c })))
              .find((f) => f.comment.id === id);
      if (!found) return void res.status(404).json({ message: 'Not Found' });
      const content = req.body?.content;
      if (typeof content !== 'string' || !REACTIONS.has(content)) return void res.status(422).json({ message: 'Validation Failed' });
      const reactions = (found.comment.reactions ??= []);
      const mine = reactions.find((r) => r.content === content && r.user === login(res));
      if (mine) return void res.status(200).json({ id: mine.id, content, user: user(mine.user) });
      const reaction = { id: ctx.state.id(), content, user: login(res) };
      reactions.push(reaction);
      record(ctx, res, { kind: 'reaction.create', repo: `${repo.owner}/${repo.name}`, number: found.issue.number, id: found.comment.id });
      res.status(201).json({ id: reaction.id, content, user: user(reaction.user) });
    });
  }

  router.post('/repos/:owner/:repo/issues', (req, res) => {
    const repo = repoOf(ctx, req, res);
    if (!repo) return;
    const { title, body, labels } = req.body ?? {};
    if (typeof title !== 'string' || !title || !optionalLabels(labels)) return void res.status(422).json({ message: 'Validation Failed' });
    const item: IssueState = {
      number: repo.nextNumber++,
      title,
      body: typeof body === 'string' ? body : '',
      state: 'open',
      labels: [...new Set(labels ?? [])],
      assignees: [],
      user: login(res),
      createdAt: now(),
      updatedAt: now(),
      comments: [],
      reviews: [],
      reviewComments: [],
    };
    repo.issues.set(item.number, item);
    record(ctx, res, { kind: 'issue.create', repo: `${repo.owner}/${repo.name}`, number: item.number });
    ctx.webhooks.emit('issues', {
      action: 'opened',
      issue: issueJson(ctx.webUrl, repo, item),
      repository: repository(ctx.webUrl, repo),
      sender: user(item.user),
    });
    res.status(201).json(issueJson(ctx.webUrl, repo, item));
  });

  // After the comment route above, so `/issues/comments/<id>` never reads as an issue number.
  router.patch('/repos/:owner/:repo/issues/:number', (req, res) => {
    const repo = repoOf(ctx, req, res);
    const item = repo?.issues.get(Number(req.params.number));
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    const { title, body, state, labels, state_reason: reason } = req.body ?? {};
    const valid =
      (title === undefined || (typeof title === 'string' && title !== '')) &&
      (body === undefined || typeof body === 'string') &&
      (state === undefined || state === 'open' || state === 'closed') &&
      (reason === undefined || reason === null || reason === 'completed' || reason === 'not_planned' || reason === 'reopened') &&
      optionalLabels(labels);
    if (!valid) return void res.status(422).json({ message: 'Validation Failed' });
    const labelsBefore = [...item.labels];
    const stateBefore = item.state;
    Object.assign(item, {
      ...(title !== undefined ? { title } : {}),
      ...(body !== undefined ? { body } : {}),
      ...(state !== undefined ? { state } : {}),
      ...(labels !== undefined ? { labels: [...new Set(labels)] } : {}),
      updatedAt: now(),
    });
    record(ctx, res, { kind: 'issue.update', repo: `${repo.owner}/${repo.name}`, number: item.number });
    labelEvents(ctx, repo, item, labelsBefore, login(res));
    if (item.state !== stateBefore) {
      // GitHub's reasons: closing is `completed` unless said otherwise; reopening is `reopened`.
      item.stateReason = item.state === 'closed' ? (reason ?? 'completed') : 'reopened';
      itemEvent(ctx, repo, item, item.state === 'closed' ? 'closed' : 'reopened', login(res), {});
    }
    res.json(issueJson(ctx.webUrl, repo, item));
  });

  return router;
}

function optionalLabels(labels: unknown): labels is string[] | undefined {
  return labels === undefined || (Array.isArray(labels) && labels.every((label) => typeof label === 'string'));
}
