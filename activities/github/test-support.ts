import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalGitHub, type LocalGitHub, type LocalGitHubOptions } from '../../infra/local-github';
import { runGit } from './test-git';
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

/** Clones a repository of the local GitHub through real git and smart HTTP. */
export async function cloneLocal(identities: GitHubIdentities, repo: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-clone-'));
  const cloned = await runGit(['clone', '--quiet', identities.gitRemote(repo), dir], { cwd: tmpdir(), token: READ_TOKEN });
  if (cloned.code !== 0) throw new Error(`clone failed: ${cloned.stderr}`);
  await runGit(['config', 'user.email', 'coder@example.invalid'], { cwd: dir });
  await runGit(['config', 'user.name', 'Coder'], { cwd: dir });
  return dir;
}
