/** The unit for an exact pull request: one unit per PR. */
export function pullRequestUnitId(repo: string, pullRequest: number): string {
  return `unit:${repo}#${pullRequest}`;
}

/**
 * The unit for a generated task: the repository and a slug of the request's first words.
 * The same request in the same repository names the same unit (which it then steers).
 */
export function taskUnitId(repo: string, request: string): string {
  const words = request
    .toLowerCase()
    .replace(/[^a-z0-9\s-]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 6);
  const slug = words.join('-').replace(/-+/g, '-').slice(0, 48).replace(/-$/, '') || 'change';
  return `unit:${repo}:${slug}`;
}
