import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { branchHeads, commitFiles, createBareRepository } from './git-store';
import { Faults } from './faults';
import { headSha, pull as pullJson, repository, user } from './payloads';
import { type RestContext } from './rest-context';
import { issueRoutes } from './rest-issues';
import { issueEventRoutes } from './rest-issue-events';
import { pullRoutes } from './rest-pulls';
import { reviewCommentRoutes } from './rest-review-comments';
import { graphqlHandler } from './graphql-threads';
import { repoRoutes } from './rest-repos';
import { basicPassword, parseGitPath, serveGit } from './smart-http';
import { LocalGitHubState, type CheckRunState, type CollaboratorRole, type RepoState, type Scope, type StatusState } from './state';
import { WebhookSender } from './webhook-sender';
import { appRoutes, type LocalGitHubApp } from './app-tokens';
import { AppRegistry } from './app-registry';
import { appPages } from './app-pages';

export interface LocalGitHubOptions {
  /** Accepted tokens by scope. */
  tokens: { read: string[]; write: string[] };
  /** The login each token acts as (default `switchboard[bot]`). */
  logins?: Record<string, string>;
  /** Where events are delivered (signed when `webhookSecret` is set). */
  webhookUrl?: string;
  webhookSecret?: string;
  /** Accept GitHub App JWTs and mint installation tokens narrowed by the requested permissions. */
  app?: LocalGitHubApp;
  /** The person signed in to the web pages, who creates and installs Apps from manifests (default `local-admin`). */
  webUser?: string;
  port?: number;
}

export interface LocalGitHub {
  /** REST base for Octokit (`…/api/v3`, as on GitHub Enterprise). */
  apiUrl: string;
  /** Base for git remotes: `<gitUrl>/<owner>/<repo>.git`. */
  gitUrl: string;
  state: LocalGitHubState;
  faults: Faults;
  webhooks: WebhookSender;
  /** The Apps (from manifests, or handed in), their installations and webhook deliveries. */
  apps: AppRegistry;
  createRepo(
    owner: string,
    name: string,
    files: Record<string, string>,
    options?: {
      defaultBranch?: string;
      private?: boolean;
      hiddenFrom?: Scope[];
      collaborators?: Record<string, CollaboratorRole>;
      protectedBranches?: string[];
    },
  ): RepoState;
  /** Gives a person a role on a repository (undefined: takes it away), as its Settings → Collaborators page does. */
  setCollaborator(repo: string, login: string, role: CollaboratorRole | undefined): void;
  /**
   * Commits files on a branch as someone else's push would. Returns the commit. With `pushedBy`,
   * the push's `pull_request` `synchronize` events go out as a `git push` of that person's would; without, none.
   */
  commit(repo: string, branch: string, files: Record<string, string>, message?: string, pushedBy?: string): string;
  /** Sets (or updates, by name) a check run on a commit and emits `check_run` (`completed` once it is). */
  setCheckRun(repo: string, sha: string, run: Omit<CheckRunState, 'id'>): void;
  setStatus(repo: string, sha: string, status: StatusState): void;
  /** Marks a draft pull request ready for review (GitHub's GraphQL mutation) and emits `pull_request` `ready_for_review`. */
  readyForReview(repo: string, number: number, by: string): void;
  close(): Promise<void>;
}

/**
 * Starts a stand-in for GitHub on loopback: the REST subset Switchboard calls, real bare git
 * repositories behind git's smart HTTP, token scopes, signed webhooks and fault injection.
 */
export async function startLocalGitHub(options: LocalGitHubOptions): Promise<LocalGitHub> {
  const root = mkdtempSync(join(tmpdir(), 'local-github-'));
  const state = new LocalGitHubState();
  const faults = new Faults();
  const webhooks = new WebhookSender(options.webhookUrl, options.webhookSecret);
  const appDeliveries = new Set<Promise<unknown>>();
  const scopes = new Map<string, Scope>([
    ...options.tokens.read.map((t) => [t, 'read'] as const),
    ...options.tokens.write.map((t) => [t, 'write'] as const),
  ]);
  // Tokens minted for an App made from a manifest act as that App's bot.
  const botLogins = new Map<string, string>();
  const loginOf = (token: string) => options.logins?.[token] ?? botLogins.get(token) ?? 'switchboard[bot]';
  const apps = new AppRegistry();
  if (options.app) apps.addKnown(Number(options.app.appId), options.app.publicKey, options.app.installationId);
  let webUrl = '';
  const ctx: RestContext = {
    state,
    webhooks,
    get webUrl() {
      return webUrl;
    },
  };

  const api = express.Router();
  api.use(express.json({ limit: '10mb' }));
  api.use((req, _res, next) => {
    state.requests.push({ method: req.method, path: req.path });
    next();
  });
  api.use(faults.middleware());
  api.use(
    appRoutes({
      registry: apps,
      ...(options.app ? { known: options.app } : {}),
      grant: (token, scope, login) => {
        scopes.set(token, scope);
        if (login) botLogins.set(token, login);
      },
      webUrl: () => webUrl,
      apiUrl: () => `${webUrl}/api/v3`,
    }),
  );
  api.use((req, res, next) => {
    const match = /^(?:token|bearer)\s+(.+)$/i.exec(req.get('authorization') ?? '');
    const scope = match ? scopes.get(match[1]) : undefined;
    if (!match || !scope) return void res.status(401).json({ message: 'Bad credentials' });
    res.locals.scope = scope;
    res.locals.login = loginOf(match[1]);
    // GitHub answers a write by a token without the permission with 403.
    if (req.method !== 'GET' && req.method !== 'HEAD' && scope !== 'write') {
      return void res.status(403).json({ message: 'Resource not accessible by integration' });
    }
    next();
  });
  api.use(repoRoutes(ctx), issueEventRoutes(ctx), issueRoutes(ctx), pullRoutes(ctx), reviewCommentRoutes(ctx));
  api.use((_req, res) => void res.status(404).json({ message: 'Not Found' }));

  const app = express();
  app.use('/api/v3', api);
  app.use(appPages({ registry: apps, state, webUser: options.webUser ?? 'local-admin', webUrl: () => webUrl }));
  // An installed App hears the events it subscribed to, on its own webhook, signed with its own secret.
  webhooks.subscribe((event, payload) => {
    const repo = (payload as { repository?: { full_name?: string } }).repository?.full_name?.toLowerCase();
    for (const registered of apps.apps.values()) {
      if (!registered.sender || !registered.events.includes(event)) continue;
      const installed = registered.installations
        .map((id) => apps.installations.get(id)!)
        .find(
          (each) =>
            each.repositorySelection === 'all' || (repo !== undefined && each.repositories.some((name) => name.toLowerCase() === repo)),
        );
      if (!installed) continue;
      const sending = registered.sender.deliver(event, { ...payload, installation: { id: installed.id } }).catch(() => undefined);
      appDeliveries.add(sending);
      void sending.finally(() => appDeliveries.delete(sending));
    }
  });
  // GraphQL (Octokit sends an Enterprise base URL's queries to /api/graphql): review threads and their resolution.
  app.post(
    '/api/graphql',
    express.json({ limit: '1mb' }),
    faults.middleware(),
    graphqlHandler(ctx, (token) => scopes.get(token), loginOf),
  );

  async function handleGit(req: IncomingMessage, res: ServerResponse, target: NonNullable<ReturnType<typeof parseGitPath>>) {
    const repo = state.repo(target.owner, target.repo);
    const token = basicPassword(req);
    const scope = token ? scopes.get(token) : undefined;
    if (!scope) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="GitHub"' }).end('Authentication required\n');
      return;
    }
    if (!repo || repo.hiddenFrom?.includes(scope)) return void res.writeHead(404).end('Repository not found\n');
    if (target.isPush && scope !== 'write') return void res.writeHead(403).end('Permission denied: this token may not push\n');
    const before = target.isPush && req.method === 'POST' ? branchHeads(repo.dir) : undefined;
    await serveGit(req, res, root, `/${relativeDir(repo)}${target.rest}`, loginOf(token!));
    if (before) afterPush(repo, before, loginOf(token!));
  }

  function afterPush(repo: RepoState, before: Map<string, string>, pusher: string) {
    const after = branchHeads(repo.dir);
    const moved = [...after].filter(([branch, sha]) => before.get(branch) !== sha).map(([branch]) => branch);
    if (moved.length === 0) return;
    state.writes.push({ kind: 'push', repo: `${repo.owner}/${repo.name}`, user: pusher, at: new Date().toISOString() });
    for (const item of repo.issues.values()) {
      if (item.pull && item.state === 'open' && moved.includes(item.pull.head)) {
        webhooks.emit('pull_request', {
          action: 'synchronize',
          number: item.number,
          pull_request: pullJson(webUrl, repo, item),
          repository: repository(webUrl, repo),
          sender: user(pusher),
        });
      }
    }
  }

  const server = createServer((req, res) => {
    const target = parseGitPath(req.url ?? '/');
    if (target) {
      handleGit(req, res, target).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
      return;
    }
    app(req as express.Request, res as express.Response, () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  webUrl = `http://127.0.0.1:${port}`;

  const repoNamed = (fullName: string) => {
    const [owner, name] = fullName.split('/');
    const repo = state.repo(owner, name);
    if (!repo) throw new Error(`local GitHub has no repository ${fullName}`);
    return repo;
  };
  const relativeDir = (repo: RepoState) => `${repo.owner}/${repo.name}.git`;

  return {
    apiUrl: `${webUrl}/api/v3`,
    gitUrl: webUrl,
    state,
    faults,
    webhooks,
    apps,
    createRepo(owner, name, files, repoOptions = {}) {
      const defaultBranch = repoOptions.defaultBranch ?? 'main';
      const dir = join(root, owner, `${name}.git`);
      createBareRepository(dir, defaultBranch, files);
      const repo: RepoState = {
        owner,
        name,
        dir,
        defaultBranch,
        private: repoOptions.private ?? true,
        ...(repoOptions.hiddenFrom ? { hiddenFrom: repoOptions.hiddenFrom } : {}),
        ...(repoOptions.protectedBranches ? { protectedBranches: repoOptions.protectedBranches } : {}),
        collaborators: new Map(Object.entries(repoOptions.collaborators ?? {}).map(([login, role]) => [login.toLowerCase(), role])),
        issues: new Map(),
        nextNumber: 1,
        checkRuns: new Map(),
        statuses: new Map(),
      };
      state.repos.set(`${owner}/${name}`.toLowerCase(), repo);
      return repo;
    },
    setCollaborator(fullName, login, role) {
      const repo = repoNamed(fullName);
      if (role) repo.collaborators.set(login.toLowerCase(), role);
      else repo.collaborators.delete(login.toLowerCase());
    },
    commit(fullName, branch, files, message = `Change ${randomUUID().slice(0, 8)}`, pushedBy) {
      const repo = repoNamed(fullName);
      const before = pushedBy ? branchHeads(repo.dir) : undefined;
      const sha = commitFiles(repo.dir, branch, files, message, `refs/heads/${repo.defaultBranch}`);
      if (before && pushedBy) afterPush(repo, before, pushedBy);
      return sha;
    },
    setCheckRun(fullName, sha, run) {
      const repo = repoNamed(fullName);
      const previous = repo.checkRuns.get(sha) ?? [];
      const runs = previous.filter((r) => r.name !== run.name);
      // An update of a run keeps its id, as PATCH /check-runs/{id} does on GitHub.
      const stored = { ...run, id: previous.find((r) => r.name === run.name)?.id ?? state.id() };
      repo.checkRuns.set(sha, [...runs, stored]);
      // As GitHub does: the event lists the open PRs whose head is this commit.
      const pulls = [...repo.issues.values()].filter((item) => item.pull && item.state === 'open' && headSha(repo, item) === sha);
      webhooks.emit('check_run', {
        action: run.status === 'completed' ? 'completed' : 'created',
        check_run: {
          id: stored.id,
          name: run.name,
          head_sha: sha,
          status: run.status,
          conclusion: run.conclusion,
          pull_requests: pulls.map((item) => ({ number: item.number, head: { ref: item.pull!.head, sha } })),
        },
        repository: repository(webUrl, repo),
        sender: user('github-actions[bot]'),
      });
    },
    setStatus(fullName, sha, status) {
      const repo = repoNamed(fullName);
      repo.statuses.set(sha, [...(repo.statuses.get(sha) ?? []).filter((s) => s.context !== status.context), status]);
    },
    readyForReview(fullName, number, by) {
      const repo = repoNamed(fullName);
      const item = repo.issues.get(number);
      if (!item?.pull) throw new Error(`local GitHub has no pull request ${fullName}#${number}`);
      item.pull.draft = false;
      webhooks.emit('pull_request', {
        action: 'ready_for_review',
        number,
        pull_request: pullJson(webUrl, repo, item),
        repository: repository(webUrl, repo),
        sender: user(by),
      });
    },
    async close() {
      await webhooks.settle();
      await Promise.all([...appDeliveries]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export { LocalGitHubState } from './state';
export type { WriteRecord, Scope, CollaboratorRole } from './state';
export { COLLABORATOR_ROLES } from './state';
export type { FaultMatch, Faults } from './faults';
export type { Delivery, WebhookSender } from './webhook-sender';
