/**
 * The issues a pull request's body closes when it is merged into the default branch, as GitHub
 * reads them: a closing keyword (close, closes, closed, fix, fixes, fixed, resolve, resolves,
 * resolved; any case, an optional colon) and `#<n>` in the same repository. References to
 * other repositories (`owner/name#n`) are left alone: the local GitHub closes only its own.
 */
export function closedIssueNumbers(body: string | undefined): number[] {
  const numbers = new Set<number>();
  const pattern = /(?:^|[^\w/])(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):?\s+#(\d+)\b/gi;
  for (const match of (body ?? '').matchAll(pattern)) numbers.add(Number(match[1]));
  return [...numbers];
}
