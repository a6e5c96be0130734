import type { ToolCall, ToolResult } from '../../contracts/model';
import type { EffectResult } from '../../contracts/github';
import type { ToolName } from '../../../tools';
import { fail, failureMessage, ok } from './tool-result';
import { type ToolContext, type ToolExecutor } from './context';

/** Characters of a GitHub answer shown to the model. */
export const GITHUB_RESULT_LIMIT = 30_000;

type GitHubToolName = Extract<ToolName, `github_${string}`>;

/**
 * Reads use the read credential whatever the run holds (least privilege); writes use the
 * run's own identity, so a read-scoped run's write is refused by GitHub itself and reported
 * as such. Failures come back as data.
 */
function githubTool<Name extends GitHubToolName>(
  run: (ctx: ToolContext, call: ToolCall, input: Parameters<ToolExecutor<Name>>[2]) => Promise<ToolResult>,
): ToolExecutor<Name> {
  return async (ctx, call, input) => {
    try {
      return await run(ctx, call, input);
    } catch (error) {
      return fail(call, `GitHub could not answer: ${failureMessage(error)}`);
    }
  };
}

const identity = 'read' as const;
const writer = (ctx: ToolContext) => (ctx.state.input.profile.identity === 'none' ? 'read' : ctx.state.input.profile.identity);

export const githubRepos = githubTool<'github_repos'>(async (ctx, call, input) =>
  answer(call, await ctx.activities.githubReads.githubRepos({ identity, ...input })),
);
export const githubTree = githubTool<'github_tree'>(async (ctx, call, input) =>
  answer(call, await ctx.activities.githubReads.githubTree({ identity, ...input })),
);
export const githubFile = githubTool<'github_file'>(async (ctx, call, input) =>
  answer(call, await ctx.activities.githubReads.githubFile({ identity, ...input })),
);
export const githubSearchCode = githubTool<'github_search_code'>(async (ctx, call, input) =>
  answer(call, await ctx.activities.githubReads.githubSearchCode({ identity, ...input })),
);
export const githubIssueList = githubTool<'github_issue_list'>(async (ctx, call, input) =>
  answer(call, await ctx.activities.githubReads.githubIssueList({ identity, ...input })),
);
export const githubIssueGet = githubTool<'github_issue_get'>(async (ctx, call, input) =>
  answer(call, await ctx.activities.githubReads.githubIssueGet({ identity, ...input })),
);
/**
 * The `patched()` id of github_pull_get answering what its description names: the head commit's
 * checks and the PR's reviews and comments beside the pull request and its files. Runs recorded
 * before it answered with the pull request and files only.
 */
export const PULL_GET_CHECKS_REVIEWS = 'github-pull-get-checks-reviews';

export const githubPullGet = githubTool<'github_pull_get'>(async (ctx, call, input) => {
  const reads = ctx.activities.githubReads;
  const pull = await reads.githubPullGet({ identity, ...input });
  if (ctx.patched && !ctx.patched(PULL_GET_CHECKS_REVIEWS)) return answer(call, pull);
  const [checks, activity] = await Promise.all([
    reads.githubCommitChecks({ identity, repo: input.repo, ref: pull.headSha }),
    reads.githubPullActivity({ identity, repo: input.repo, number: input.number }),
  ]);
  const { files, ...head } = pull;
  // The files (with their diff) last: a long answer is cut from the end.
  return answer(call, {
    ...head,
    checks: { overall: checks.overall, checkRuns: checks.checkRuns, statuses: checks.statuses },
    reviews: activity.reviews,
    reviewComments: activity.reviewComments,
    comments: activity.comments,
    files,
  });
});

export const githubIssueComment = githubTool<'github_issue_comment'>(async (ctx, call, input) => {
  const result = await ctx.activities.githubWrites.postComment({ identity: writer(ctx), ...input, effectKey: ctx.effectKey(call) });
  return written(call, result, 'comment', `Comment posted: ${result.url ?? `#${result.id}`}.`);
});
export const githubIssueCreate = githubTool<'github_issue_create'>(async (ctx, call, input) => {
  const result = await ctx.activities.githubWrites.createIssue({ identity: writer(ctx), ...input, effectKey: ctx.effectKey(call) });
  return written(call, result, 'issue', `Issue #${result.number} opened: ${result.url ?? ''}.`);
});
export const githubIssueUpdate = githubTool<'github_issue_update'>(async (ctx, call, input) => {
  const result = await ctx.activities.githubWrites.updateIssue({ identity: writer(ctx), ...input, effectKey: ctx.effectKey(call) });
  return written(call, result, 'issue change', `Issue #${result.number} updated: ${result.url ?? ''}.`);
});

/** A write's outcome in words: confirmed, unconfirmed (not sent again) or refused. */
function written(call: ToolCall, result: EffectResult, what: string, confirmed: string): ToolResult {
  if (result.status === 'confirmed') return ok(call, confirmed);
  if (result.status === 'unconfirmed') {
    return fail(
      call,
      `The ${what}'s delivery could not be confirmed (its response was lost and no trace was found); it was not sent again.`,
    );
  }
  return fail(call, `GitHub refused the ${what} (${result.code}): ${result.reason ?? ''}`);
}

function answer(call: ToolCall, value: unknown): ToolResult {
  const text = JSON.stringify(value, null, 1);
  return ok(call, text.length > GITHUB_RESULT_LIMIT ? `${text.slice(0, GITHUB_RESULT_LIMIT)}\n[truncated: narrow the request]` : text);
}
