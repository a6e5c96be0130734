import { type Request, type Response, Router } from 'express';
import { listTree, readBlob, revParse, tryGit } from './git-store';
import { repository, user } from './payloads';
import { page, repoOf, type RestContext } from './rest-context';
import { type Scope } from './state';

/** Repositories, trees, contents, code search, and checks/statuses of a commit. */
export function repoRoutes(ctx: RestContext): Router {
  const router = Router();
  // What the request's token may see: a repository hidden from its scope is left out, as on GitHub.
  const visible = (res: Response) => [...ctx.state.repos.values()].filter((r) => !r.hiddenFrom?.includes(res.locals.scope as Scope));

  // What a credential check reads: it costs no quota on GitHub, and needs a valid token.
  router.get('/rate_limit', (_req, res) => {
    const core = { limit: 5000, used: 0, remaining: 5000, reset: Math.floor(Date.now() / 1000) + 3600 };
    res.json({ resources: { core }, rate: core });
  });
  router.get('/user/repos', (req, res) =>
    page(
      req,
      res,
      visible(res).map((r) => repository(ctx.webUrl, r)),
    ),
  );
  router.get('/installation/repositories', (req, res) =>
    page(
      req,
      res,
      visible(res).map((r) => repository(ctx.webUrl, r)),
      (repositories) => ({ total_count: visible(res).length, repositories }),
    ),
  );

  router.get('/repos/:owner/:repo', (req, res) => {
    const repo = repoOf(ctx, req, res);
    if (repo) res.json(repository(ctx.webUrl, repo));
  });

  // A branch and its head commit (`repos.getBranch`), as a settings reader asks what the default branch is at.
  router.get('/repos/:owner/:repo/branches/*branch', (req, res) => {
    const repo = repoOf(ctx, req, res);
    if (!repo) return;
    const name = req.params.branch.join('/');
    const sha = revParse(repo.dir, `refs/heads/${name}`);
    if (!sha) return void res.status(404).json({ message: 'Branch not found' });
    res.json({
      name,
      commit: { sha, url: `${ctx.webUrl}/${repo.owner}/${repo.name}/commit/${sha}` },
      protected: repo.protectedBranches?.includes(name) ?? false,
    });
  });

  // A commit object (`git.getCommit`): its message, tree and parents, as GitHub's git database API answers.
  router.get('/repos/:owner/:repo/git/commits/:sha', (req, res) => {
    const repo = repoOf(ctx, req, res);
    if (!repo) return;
    const sha = /^[0-9a-f]{4,40}$/.test(req.params.sha)
      ? tryGit(repo.dir, ['rev-parse', '--verify', '--quiet', `${req.params.sha}^{commit}`])?.trim()
      : undefined;
    if (!sha) return void res.status(404).json({ message: 'Not Found' });
    const [tree, parents, message] = ['%T', '%P', '%B'].map((format) => tryGit(repo.dir, ['log', '-1', `--format=${format}`, sha]) ?? '');
    res.json({
      sha,
      message: message.replace(/\n$/, ''),
      tree: { sha: tree.trim() },
      parents: parents
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map((parent) => ({ sha: parent })),
    });
  });

  // GitHub's answer for a person's role: `permission` is the legacy base (maintain reads as write,
  // triage as read), `role_name` the role itself; a person with no role on a private repository is `none`.
  router.get('/repos/:owner/:repo/collaborators/:username/permission', (req, res) => {
    const repo = repoOf(ctx, req, res);
    if (!repo) return;
    const login = String(req.params.username);
    const role = ctx.state.roleOf(repo, login);
    const legacy = { admin: 'admin', maintain: 'write', write: 'write', triage: 'read', read: 'read', none: 'none' }[role];
    res.json({ permission: legacy, role_name: role, user: role === 'none' ? null : { ...user(login), role_name: role } });
  });

  router.get('/repos/:owner/:repo/git/trees/*tree', (req, res) => {
    const repo = repoOf(ctx, req, res);
    if (!repo) return;
    const treeish = req.params.tree.join('/');
    // `ref:path` names a tree directly; a bare ref or commit needs peeling to its tree.
    const named = treeish.includes(':') ? treeish : `${treeish}^{tree}`;
    const found = tryGit(repo.dir, ['rev-parse', '--verify', '--quiet', named])?.trim();
    const sha = found && tryGit(repo.dir, ['cat-file', '-t', found])?.trim() === 'tree' ? found : undefined;
    const items = sha ? listTree(repo.dir, sha, req.query.recursive !== undefined) : undefined;
    if (!sha || !items) return void res.status(404).json({ message: 'Not Found' });
    res.json({ sha, truncated: false, tree: items.map((i) => ({ path: i.path, mode: i.mode, type: i.type, sha: i.sha, size: i.size })) });
  });

  const contents = (path: string, req: Request, res: Response) => {
    const repo = repoOf(ctx, req, res);
    if (!repo) return;
    const ref = typeof req.query.ref === 'string' ? req.query.ref : repo.defaultBranch;
    const commit = revParse(repo.dir, ref);
    const clean = path.replace(/^\/+|\/+$/g, '');
    const entry = commit && clean ? listTree(repo.dir, commit, true)?.find((i) => i.path === clean) : undefined;
    if (commit && (!clean || entry?.type === 'tree')) {
      const items = listTree(repo.dir, clean ? `${commit}:${clean}` : commit, false) ?? [];
      return void res.json(
        items.map((i) => ({
          name: i.path,
          path: clean ? `${clean}/${i.path}` : i.path,
          sha: i.sha,
          size: i.size ?? 0,
          type: i.type === 'tree' ? 'dir' : 'file',
        })),
      );
    }
    if (!entry || entry.type !== 'blob') return void res.status(404).json({ message: 'Not Found' });
    const bytes = readBlob(repo.dir, entry.sha);
    res.json({
      type: 'file',
      encoding: 'base64',
      name: clean.split('/').pop(),
      path: clean,
      sha: entry.sha,
      size: bytes.length,
      content: bytes.toString('base64'),
    });
  };
  router.get('/repos/:owner/:repo/contents', (req, res) => contents('', req, res));
  router.get('/repos/:owner/:repo/contents/*path', (req, res) => contents(req.params.path.join('/'), req, res));

  router.get('/search/code', (req, res) => {
    const q = typeof req.query.q === 'string' ? req.query.q : '';
    const repoFilter = /(?:^|\s)repo:(\S+)/.exec(q)?.[1]?.toLowerCase();
    const text = q.replace(/(?:^|\s)\w+:\S+/g, ' ').trim();
    if (!text) return void res.status(422).json({ message: 'Validation Failed' });
    const items: object[] = [];
    for (const repo of visible(res)) {
      const fullName = `${repo.owner}/${repo.name}`;
      if (repoFilter && fullName.toLowerCase() !== repoFilter) continue;
      const out = tryGit(repo.dir, ['grep', '-n', '-I', '-F', '-i', '-e', text, repo.defaultBranch]) ?? '';
      const byPath = new Map<string, string[]>();
      for (const line of out.split('\n').filter(Boolean)) {
        const [, path, , ...rest] = line.split(':');
        byPath.set(path, [...(byPath.get(path) ?? []), rest.join(':')]);
      }
      for (const [path, fragments] of byPath) {
        items.push({
          name: path.split('/').pop(),
          path,
          sha: '',
          repository: repository(ctx.webUrl, repo),
          text_matches: fragments.map((fragment) => ({ fragment })),
        });
      }
    }
    page(req, res, items, (slice) => ({ total_count: items.length, incomplete_results: false, items: slice }));
  });

  router.get('/repos/:owner/:repo/commits/:ref/check-runs', (req, res) => {
    const repo = repoOf(ctx, req, res);
    if (!repo) return;
    const sha = revParse(repo.dir, String(req.params.ref)) ?? String(req.params.ref);
    const runs = (repo.checkRuns.get(sha) ?? []).map((r) => ({ ...r, head_sha: sha }));
    page(req, res, runs, (check_runs) => ({ total_count: runs.length, check_runs }));
  });

  router.get('/repos/:owner/:repo/commits/:ref/status', (req, res) => {
    const repo = repoOf(ctx, req, res);
    if (!repo) return;
    const sha = revParse(repo.dir, String(req.params.ref)) ?? String(req.params.ref);
    const statuses = repo.statuses.get(sha) ?? [];
    const state = statuses.some((s) => s.state === 'failure' || s.state === 'error')
      ? 'failure'
      : statuses.some((s) => s.state === 'pending') || statuses.length === 0
        ? 'pending'
        : 'success';
    res.json({ sha, state, total_count: statuses.length, statuses });
  });

  return router;
}
