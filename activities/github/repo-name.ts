import { failure } from '../../workflows/contracts';

/** Splits `owner/name`, refusing anything else (a retry cannot fix a bad name). */
export function splitRepo(repo: string): { owner: string; repo: string } {
  const match = /^([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+)$/.exec(repo);
  if (!match) throw failure('invalid_repo', `'${repo}' is not a repository name (expected owner/name)`);
  return { owner: match[1], repo: match[2] };
}
