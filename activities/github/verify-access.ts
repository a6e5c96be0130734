import { createOctokit, type GitHubIdentities } from './identity';

/** Which configured credential a check used, so a refusal names the variable to fix. */
const SECRET_OF = { read: 'GITHUB_READ_TOKEN', write: 'GITHUB_WRITE_TOKEN' } as const;

/** Whether any GitHub credential is configured (an App, or either personal token). */
export async function hasGitHubCredential(identities: GitHubIdentities): Promise<boolean> {
  if (identities.kind === 'app') return true;
  return Boolean((await identities.tokenFor('read')) ?? (await identities.tokenFor('write')));
}

/**
 * One cheap authenticated round trip per credential, to tell at start whether GitHub answers
 * and accepts us: an App mints a read installation token (proving the App id, the key and the
 * installation); a personal token reads `GET /rate_limit`, which costs no quota.
 * Rejects with an error whose message names what to fix.
 */
export async function verifyGitHubAccess(identities: GitHubIdentities, timeoutMs = 10_000): Promise<void> {
  if (identities.kind === 'app') {
    try {
      await identities.tokenFor('read');
    } catch (error) {
      throw new Error(
        describe(error, identities.apiUrl, 'the GitHub App (GITHUB_APP_ID, GITHUB_APP_INSTALLATION_ID, GITHUB_APP_PRIVATE_KEY)'),
      );
    }
    return;
  }
  for (const scope of ['read', 'write'] as const) {
    const token = await identities.tokenFor(scope);
    if (!token) continue;
    try {
      await createOctokit(identities.apiUrl, token, timeoutMs).request('GET /rate_limit');
    } catch (error) {
      throw new Error(describe(error, identities.apiUrl, SECRET_OF[scope]));
    }
  }
}

function describe(error: unknown, apiUrl: string, credential: string): string {
  // Octokit reports a request that got no answer as status 500 without a response.
  const answered = (error as { response?: unknown }).response !== undefined;
  const status = answered ? (error as { status?: number }).status : undefined;
  if (status === 401 || status === 403 || status === 404) return `GitHub at ${apiUrl} refused ${credential} (HTTP ${status})`;
  if (typeof status === 'number' && status >= 400) return `GitHub at ${apiUrl} answered HTTP ${status}`;
  let deepest: unknown = error;
  while (deepest instanceof Error && deepest.cause instanceof Error) deepest = deepest.cause;
  const why = deepest instanceof Error ? deepest.message.split('\n')[0] : String(error);
  return `GitHub at ${apiUrl} is unreachable (${why})`;
}
