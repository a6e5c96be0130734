import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { failure } from '../../workflows/contracts';
import { tokenPermissions } from './app-permissions';
import type { IdentityScope } from '../../workflows/contracts/github';

/** A GitHub App installation, used to mint short-lived tokens narrowed per scope. */
export interface GitHubAppCredential {
  appId: string;
  privateKey: string;
  installationId: number;
}

export interface GitHubIdentityOptions {
  /** REST base URL (`https://api.github.com`, or `https://<host>/api/v3` on Enterprise). */
  apiUrl: string;
  /** Base URL for git over HTTPS (`https://github.com`). */
  gitUrl: string;
  /** The App; when given it wins over the personal tokens. */
  app?: GitHubAppCredential;
  /** Personal tokens for small setups (GITHUB_READ_TOKEN / GITHUB_WRITE_TOKEN). */
  tokens?: { read?: string; write?: string };
  /** Per-request timeout for API calls. */
  requestTimeoutMs?: number;
  /** Refresh an App token this long before GitHub expires it. */
  refreshMarginMs?: number;
  now?: () => number;
}

/** The credentials of one deployment, handed to every GitHub activity and the sandbox. */
export interface GitHubIdentities {
  readonly apiUrl: string;
  readonly gitUrl: string;
  /** `app` when tokens are minted per scope, `tokens` for the personal pair. */
  readonly kind: 'app' | 'tokens';
  /** True when any credential (the App, or a read or write token) is configured. */
  readonly configured: boolean;
  /** The token for a scope, or undefined for `none` or a scope with no credential configured. */
  tokenFor(scope: IdentityScope): Promise<string | undefined>;
  /** An Octokit on the scope's token; throws when the scope has no credential. */
  octokitFor(scope: IdentityScope): Promise<Octokit>;
  /** The HTTPS clone/push URL of a repository (no credential in it). */
  gitRemote(repo: string): string;
}

/**
 * What an App token may do per scope (activities/github/app-permissions.ts, the one list). A read
 * run gets no write permission at all, so even a shell in its sandbox cannot push: GitHub itself refuses.
 */
export const APP_PERMISSIONS: Record<'read' | 'write', Record<string, 'read' | 'write'>> = {
  read: tokenPermissions('read'),
  write: tokenPermissions('write'),
};

/**
 * An Octokit that makes exactly the requests it is asked to: no retries or throttling of its
 * own (Temporal retries activities), and a timeout per request so a silent GitHub fails.
 */
export function createOctokit(apiUrl: string, token: string | undefined, timeoutMs = 20_000): Octokit {
  const timedFetch: typeof fetch = (input, init) => fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(timeoutMs) });
  return new Octokit({
    baseUrl: apiUrl.replace(/\/+$/, ''),
    auth: token,
    userAgent: 'switchboard',
    request: { fetch: timedFetch, retries: 0 },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
}

/** Builds the identities from explicit options (see `githubIdentitiesFromEnvironment` for the edge). */
export function createGitHubIdentities(options: GitHubIdentityOptions): GitHubIdentities {
  const now = options.now ?? Date.now;
  const margin = options.refreshMarginMs ?? 5 * 60_000;
  const apiUrl = options.apiUrl.replace(/\/+$/, '');
  const gitUrl = options.gitUrl.replace(/\/+$/, '');
  const cache = new Map<'read' | 'write', { token: string; expiresAt: number }>();
  const pending = new Map<'read' | 'write', Promise<string>>();
  const app = options.app;
  const appAuth = app
    ? createAppAuth({
        appId: app.appId,
        privateKey: app.privateKey,
        request: createOctokit(apiUrl, undefined, options.requestTimeoutMs).request,
      })
    : undefined;

  async function mint(scope: 'read' | 'write'): Promise<string> {
    const result = await appAuth!({
      type: 'installation',
      installationId: app!.installationId,
      permissions: APP_PERMISSIONS[scope],
      // Our cache decides freshness; the library's own cache would hand back a token near expiry.
      refresh: true,
    });
    cache.set(scope, { token: result.token, expiresAt: Date.parse(result.expiresAt) });
    return result.token;
  }

  async function tokenFor(scope: IdentityScope): Promise<string | undefined> {
    if (scope === 'none') return undefined;
    if (!appAuth) return options.tokens?.[scope];
    const cached = cache.get(scope);
    if (cached && cached.expiresAt - margin > now()) return cached.token;
    // One mint at a time per scope, so a burst of activities shares a token.
    let inFlight = pending.get(scope);
    if (!inFlight) {
      inFlight = mint(scope).finally(() => pending.delete(scope));
      pending.set(scope, inFlight);
    }
    return inFlight;
  }

  return {
    apiUrl,
    gitUrl,
    kind: appAuth ? 'app' : 'tokens',
    configured: Boolean(appAuth || options.tokens?.read || options.tokens?.write),
    tokenFor,
    async octokitFor(scope) {
      const token = await tokenFor(scope);
      if (!token) throw failure('github_no_credential', `no GitHub credential is configured for the '${scope}' identity`);
      return createOctokit(apiUrl, token, options.requestTimeoutMs);
    },
    gitRemote(repo) {
      return `${gitUrl}/${repo}.git`;
    },
  };
}

/** The edge: reads the secrets from the environment, the rest from the GitHub config section. */
export function githubIdentitiesFromEnvironment(
  config: { apiUrl: string; gitUrl: string; appId?: string; installationId?: number; requestTimeoutMs?: number },
  readSecret: (name: 'githubReadToken' | 'githubWriteToken' | 'githubAppPrivateKey') => string | undefined,
): GitHubIdentities {
  const privateKey = readSecret('githubAppPrivateKey');
  const app =
    config.appId && config.installationId && privateKey
      ? { appId: config.appId, installationId: config.installationId, privateKey: privateKey.replace(/\\n/g, '\n') }
      : undefined;
  return createGitHubIdentities({
    apiUrl: config.apiUrl,
    gitUrl: config.gitUrl,
    app,
    tokens: { read: readSecret('githubReadToken'), write: readSecret('githubWriteToken') },
    requestTimeoutMs: config.requestTimeoutMs,
  });
}
