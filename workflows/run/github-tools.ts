import { proxyActivities } from '@temporalio/workflow';
import type { ToolCall, ToolResult } from '../../activities/models/types';
import type { EffectResult, GitHubActivities } from '../../activities/github';
import type { Profile } from '../../agents/profile';

export const GITHUB_READ_TIMEOUT = '1 minute';
/**
 * A write is one REST call; GitHub answers in well under a second. Writes do not heartbeat,
 * so a worker that dies mid-write is noticed only when this runs out; the retry then looks
 * for the marker. Just above Octokit's own request timeout (github.requestTimeoutMs, 20 s by
 * default), so a slow GitHub is reported by the request itself and a lost worker costs at
 * most this long.
 */
export const GITHUB_WRITE_TIMEOUT = '25 seconds';
/** Characters of a GitHub answer shown to the model. */
export const GITHUB_RESULT_LIMIT = 30_000;

const reads = proxyActivities<GitHubActivities>({
  startToCloseTimeout: GITHUB_READ_TIMEOUT,
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 6 },
});
// At-most-once writes look for their marker on a retry, so retrying an unknown result is safe.
const writes = proxyActivities<GitHubActivities>({
  startToCloseTimeout: GITHUB_WRITE_TIMEOUT,
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

/** The GitHub tools the run dispatches to activities; others are not GitHub tools. */
export const GITHUB_TOOLS = new Set([
  'github_repos',
  'github_tree',
  'github_file',
  'github_search_code',
  'github_issue_list',
  'github_issue_get',
  'github_pull_get',
  'github_issue_comment',
  'github_issue_create',
  'github_issue_update',
]);

/**
 * Runs one GitHub tool. Reads use the read credential whatever the run holds (least
 * privilege); writes use the run's own identity, so a read-scoped run's write is refused by
 * GitHub itself and reported as such. Failures come back as data.
 */
export async function runGitHubTool(
  call: ToolCall,
  input: Record<string, unknown>,
  profile: Profile,
  effectKey: string,
): Promise<ToolResult> {
  const identity = 'read' as const;
  const writer = profile.identity === 'none' ? 'read' : profile.identity;
  try {
    switch (call.name) {
      case 'github_repos':
        return done(call, await reads.githubRepos({ identity, ...pick(input, 'owner', 'query') }));
      case 'github_tree':
        return done(call, await reads.githubTree({ identity, repo: input.repo as string, ...pick(input, 'ref', 'path', 'recursive') }));
      case 'github_file':
        return done(
          call,
          await reads.githubFile({ identity, repo: input.repo as string, path: input.path as string, ...pick(input, 'ref') }),
        );
      case 'github_search_code':
        return done(call, await reads.githubSearchCode({ identity, query: input.query as string, ...pick(input, 'repo', 'maxResults') }));
      case 'github_issue_list':
        return done(
          call,
          await reads.githubIssueList({ identity, repo: input.repo as string, ...pick(input, 'state', 'labels', 'maxResults') }),
        );
      case 'github_issue_get':
        return done(call, await reads.githubIssueGet({ identity, repo: input.repo as string, number: input.number as number }));
      case 'github_pull_get':
        return done(
          call,
          await reads.githubPullGet({
            identity,
            repo: input.repo as string,
            number: input.number as number,
            ...pick(input, 'includeDiff'),
          }),
        );
      case 'github_issue_comment': {
        const result = await writes.postComment({
          identity: writer,
          repo: input.repo as string,
          number: input.number as number,
          body: input.body as string,
          effectKey,
        });
        return written(call, result, 'comment', `Comment posted: ${result.url ?? `#${result.id}`}.`);
      }
      case 'github_issue_create': {
        const result = await writes.createIssue({
          identity: writer,
          repo: input.repo as string,
          title: input.title as string,
          body: input.body as string,
          effectKey,
          ...pick(input, 'labels'),
        });
        return written(call, result, 'issue', `Issue #${result.number} opened: ${result.url ?? ''}.`);
      }
      case 'github_issue_update': {
        const result = await writes.updateIssue({
          identity: writer,
          repo: input.repo as string,
          number: input.number as number,
          effectKey,
          ...pick(input, 'title', 'body', 'state', 'labels'),
        });
        return written(call, result, 'issue change', `Issue #${result.number} updated: ${result.url ?? ''}.`);
      }
      default:
        return { callId: call.id, name: call.name, content: `${call.name} is not a GitHub tool.`, isError: true };
    }
  } catch (error) {
    return { callId: call.id, name: call.name, content: `GitHub could not answer: ${failureMessage(error)}`, isError: true };
  }
}

/** A write's outcome in words: confirmed, unconfirmed (not sent again) or refused. */
function written(call: ToolCall, result: EffectResult, what: string, confirmed: string): ToolResult {
  if (result.status === 'confirmed') return { callId: call.id, name: call.name, content: confirmed };
  if (result.status === 'unconfirmed') {
    return {
      callId: call.id,
      name: call.name,
      content: `The ${what}'s delivery could not be confirmed (its response was lost and no trace was found); it was not sent again.`,
      isError: true,
    };
  }
  return {
    callId: call.id,
    name: call.name,
    content: `GitHub refused the ${what} (${result.code}): ${result.reason ?? ''}`,
    isError: true,
  };
}

function done(call: ToolCall, value: unknown): ToolResult {
  const text = JSON.stringify(value, null, 1);
  const content = text.length > GITHUB_RESULT_LIMIT ? `${text.slice(0, GITHUB_RESULT_LIMIT)}\n[truncated: narrow the request]` : text;
  return { callId: call.id, name: call.name, content };
}

function pick(input: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => input[key] !== undefined).map((key) => [key, input[key]]));
}

function failureMessage(error: unknown): string {
  const failure = error as { message?: string; cause?: { message?: string; type?: string } };
  const cause = failure.cause;
  return cause?.message ? `${cause.type ? `${cause.type}: ` : ''}${cause.message}` : (failure.message ?? String(error));
}
