import { startLocalGitHub, type LocalGitHub, type LocalGitHubOptions } from '../../emulators/local-github';
import { createGitHubIdentities, type GitHubIdentities } from './identity';

export const READ_TOKEN = 'ghp_read_token_for_tests';
export const WRITE_TOKEN = 'ghp_write_token_for_tests';

/** A local GitHub with one read and one write token, and identities pointed at it. */
export async function localGitHubWithIdentities(
  extra: Partial<LocalGitHubOptions> = {},
): Promise<{ github: LocalGitHub; identities: GitHubIdentities }> {
  const github = await startLocalGitHub({ tokens: { read: [READ_TOKEN], write: [WRITE_TOKEN] }, ...extra });
  const identities = createGitHubIdentities({
    apiUrl: github.apiUrl,
    gitUrl: github.gitUrl,
    tokens: { read: READ_TOKEN, write: WRITE_TOKEN },
    requestTimeoutMs: 5_000,
  });
  return { github, identities };
}
