import { type Request, type Response, Router } from 'express';
import { issue as issueJson, pull as pullJson, repository, user } from './payloads';
import { login, now, record, repoOf, type RestContext } from './rest-context';
import { type IssueState, type RepoState } from './state';

/**
 * Assignees and labels, and the events GitHub raises for them: `issues` `assigned` /
 * `unassigned` / `labeled` / `unlabeled` on an issue, the same actions of `pull_request` on a
 * pull request, one event per assignee or label that changed, the sender being who changed it.
 */
export function issueEventRoutes(ctx: RestContext): Router {
  const router = Router();
  const itemOf = (repo: RepoState | undefined, number: unknown) => repo?.issues.get(Number(number));

  const setAssignees = (add: boolean) => (req: Request, res: Response) => {
    const repo = repoOf(ctx, req, res);
    const item = itemOf(repo, req.params.number);
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    const asked: unknown = req.body?.assignees;
    if (!Array.isArray(asked) || !asked.every((login) => typeof login === 'string'))
      return void res.status(422).json({ message: 'Validation Failed' });
    const before = [...item.assignees];
    item.assignees = add ? [...new Set([...before, ...asked])] : before.filter((login) => !asked.includes(login));
    item.updatedAt = now();
    record(ctx, res, { kind: 'assignees.set', repo: `${repo.owner}/${repo.name}`, number: item.number });
    const changed = add ? item.assignees.filter((l) => !before.includes(l)) : before.filter((l) => !item.assignees.includes(l));
    for (const assignee of changed) itemEvent(ctx, repo, item, add ? 'assigned' : 'unassigned', login(res), { assignee: user(assignee) });
    res.status(add ? 201 : 200).json(issueJson(ctx.webUrl, repo, item));
  };
  router.post('/repos/:owner/:repo/issues/:number/assignees', setAssignees(true));
  router.delete('/repos/:owner/:repo/issues/:number/assignees', setAssignees(false));

  /** Adds labels (POST) or replaces them (PUT), with an event per label that changed either way. */
  const setLabels = (replace: boolean) => (req: Request, res: Response) => {
    const repo = repoOf(ctx, req, res);
    const item = itemOf(repo, req.params.number);
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    const labels: unknown = Array.isArray(req.body) ? req.body : req.body?.labels;
    if (!Array.isArray(labels) || !labels.every((l) => typeof l === 'string'))
      return void res.status(422).json({ message: 'Validation Failed' });
    const before = [...item.labels];
    item.labels = [...new Set(replace ? labels : [...before, ...labels])];
    item.updatedAt = now();
    record(ctx, res, { kind: 'labels.set', repo: `${repo.owner}/${repo.name}`, number: item.number });
    labelEvents(ctx, repo, item, before, login(res));
    res.json(item.labels.map((name) => ({ name })));
  };
  router.post('/repos/:owner/:repo/issues/:number/labels', setLabels(false));
  router.put('/repos/:owner/:repo/issues/:number/labels', setLabels(true));

  router.delete('/repos/:owner/:repo/issues/:number/labels/:name', (req, res) => {
    const repo = repoOf(ctx, req, res);
    const item = itemOf(repo, req.params.number);
    if (!repo) return;
    if (!item) return void res.status(404).json({ message: 'Not Found' });
    const name = String(req.params.name);
    if (!item.labels.includes(name)) return void res.status(404).json({ message: 'Label does not exist' });
    const before = [...item.labels];
    item.labels = before.filter((label) => label !== name);
    item.updatedAt = now();
    record(ctx, res, { kind: 'labels.set', repo: `${repo.owner}/${repo.name}`, number: item.number });
    labelEvents(ctx, repo, item, before, login(res));
    res.json(item.labels.map((label) => ({ name: label })));
  });

  return router;
}

/** One `labeled` or `unlabeled` event per label that changed from `before` to the item's labels now. */
export function labelEvents(ctx: RestContext, repo: RepoState, item: IssueState, before: string[], sender: string): void {
  for (const name of item.labels.filter((label) => !before.includes(label)))
    itemEvent(ctx, repo, item, 'labeled', sender, { label: { name, color: 'ededed' } });
  for (const name of before.filter((label) => !item.labels.includes(label)))
    itemEvent(ctx, repo, item, 'unlabeled', sender, { label: { name, color: 'ededed' } });
}

/** An event about an issue (`issues`) or a pull request (`pull_request`), as GitHub names them. */
export function itemEvent(ctx: RestContext, repo: RepoState, item: IssueState, action: string, sender: string, extra: object): void {
  const about = item.pull
    ? { number: item.number, pull_request: pullJson(ctx.webUrl, repo, item) }
    : { issue: issueJson(ctx.webUrl, repo, item) };
  ctx.webhooks.emit(item.pull ? 'pull_request' : 'issues', {
    action,
    ...about,
    ...extra,
    repository: repository(ctx.webUrl, repo),
    sender: user(sender),
  });
}
