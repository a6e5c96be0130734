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

/** A unit's one-line summary in the Web UI: `ship acme/app#7: <request>`, just `ship acme/app#7` for an exact PR with no request. */
export function unitSummary(input: { repo: string; pullRequest?: number; request?: string }): string {
  const target = `ship ${input.repo}${input.pullRequest ? `#${input.pullRequest}` : ''}`;
  const request = (input.request ?? '').trim().slice(0, 100);
  return request ? `${target}: ${request}` : target;
}
