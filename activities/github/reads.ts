import { reading } from './failures';
import { type GitHubIdentities } from './identity';
import { splitRepo } from './repo-name';
import type * as T from '../../workflows/contracts/github';

const MAX_FILE_BYTES = 1024 * 1024;
/** The newest comments an issue's seed keeps. */
const ISSUE_COMMENTS_KEPT = 30;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n[… cut at ${max} characters]` : text;
}

/** The read activities; each uses the run's identity (default `read`). */
export function createGitHubReadActivities(identities: GitHubIdentities) {
  const octokit = (identity: T.ReposInput['identity']) => identities.octokitFor(identity ?? 'read');

  return {
    async githubRepos(input: T.ReposInput): Promise<T.RepoSummary[]> {
      const gh = await octokit(input.identity);
      const repos = await reading('the repository list', async () =>
        identities.kind === 'app'
          ? gh.paginate(gh.rest.apps.listReposAccessibleToInstallation, { per_page: 100 })
          : gh.paginate(gh.rest.repos.listForAuthenticatedUser, { per_page: 100 }),
      );
      return repos
        .filter((r) => !input.owner || r.owner.login.toLowerCase() === input.owner.toLowerCase())
        .filter((r) => !input.query || r.name.toLowerCase().includes(input.query.toLowerCase()))
        .map((r) => ({ fullName: r.full_name, defaultBranch: r.default_branch, private: r.private, pushedAt: r.pushed_at ?? undefined }));
    },

    async githubTree(input: T.TreeInput): Promise<T.TreeResult> {
      const gh = await octokit(input.identity);
      const where = splitRepo(input.repo);
      return reading(`the tree of ${input.repo}`, async () => {
        const ref = input.ref ?? (await gh.rest.repos.get(where)).data.default_branch;
        const treeSha = input.path ? `${ref}:${input.path.replace(/^\/+|\/+$/g, '')}` : ref;
        const { data } = await gh.rest.git.getTree({ ...where, tree_sha: treeSha, recursive: input.recursive ? 'true' : undefined });
        return {
          sha: data.sha,
          truncated: data.truncated,
          entries: data.tree.map((e) => ({ path: e.path ?? '', type: e.type as T.TreeEntry['type'], size: e.size })),
        };
      });
    },

    async githubFile(input: T.FileInput): Promise<T.FileResult> {
      const gh = await octokit(input.identity);
      return reading(`${input.path} in ${input.repo}`, async () => {
        const { data } = await gh.rest.repos.getContent({ ...splitRepo(input.repo), path: input.path, ref: input.ref });
        if (Array.isArray(data) || data.type !== 'file') throw Object.assign(new Error(`${input.path} is not a file`), { status: 404 });
        const bytes = Buffer.from(data.content, 'base64');
        const text = bytes.subarray(0, MAX_FILE_BYTES);
        const binary = text.includes(0);
        return {
          path: data.path,
          sha: data.sha,
          size: data.size,
          content: binary ? text.toString('base64') : text.toString('utf8'),
          encoding: binary ? 'base64' : 'utf8',
        };
      });
    },

    async githubSearchCode(input: T.SearchCodeInput): Promise<T.SearchCodeHit[]> {
      const gh = await octokit(input.identity);
      const q = input.repo ? `${input.query} repo:${input.repo}` : input.query;
      const max = input.maxResults ?? 20;
      return reading('code search', async () => {
        const { data } = await gh.rest.search.code({
          q,
          per_page: Math.min(max, 100),
          headers: { accept: 'application/vnd.github.text-match+json' },
        });
        return data.items.slice(0, max).map((item) => ({
          repo: item.repository.full_name,
          path: item.path,
          fragments: (item.text_matches ?? []).map((m) => m.fragment ?? '').filter(Boolean),
        }));
      });
    },

    async githubIssueList(input: T.IssueListInput): Promise<T.IssueSummary[]> {
      const gh = await octokit(input.identity);
      const max = input.maxResults ?? 30;
      return reading(`the issues of ${input.repo}`, async () => {
        const found: T.IssueSummary[] = [];
        const pages = gh.paginate.iterator(gh.rest.issues.listForRepo, {
          ...splitRepo(input.repo),
          state: input.state ?? 'open',
          labels: input.labels?.join(','),
          sort: 'created',
          direction: 'desc',
          per_page: Math.min(100, max),
        });
        for await (const page of pages) {
          // The issues endpoint also returns pull requests; the tool lists issues only.
          for (const issue of page.data) if (!issue.pull_request && found.length < max) found.push(issueSummary(issue));
          if (found.length >= max) break;
        }
        return found;
      });
    },

    async githubIssueGet(input: T.IssueGetInput): Promise<T.IssueDetail> {
      const gh = await octokit(input.identity);
      return reading(`${input.repo}#${input.number}`, async () => {
        const { data } = await gh.rest.issues.get({ ...splitRepo(input.repo), issue_number: input.number });
        return { ...issueSummary(data), body: data.body ?? '', comments: data.comments, isPullRequest: Boolean(data.pull_request) };
      });
    },

    /**
     * An issue with its comments, as a ship unit is seeded with it: the people's comments (not
     * Switchboard's own, which carry its effect marker), the newest kept when there are many.
     */
    async githubIssueThread(input: T.IssueGetInput): Promise<T.IssueThread> {
      const gh = await octokit(input.identity);
      const where = { ...splitRepo(input.repo), issue_number: input.number };
      return reading(`${input.repo}#${input.number}`, async () => {
        const { data: issue } = await gh.rest.issues.get(where);
        const all = await gh.paginate(gh.rest.issues.listComments, { ...where, per_page: 100 });
        const people = all.filter((comment) => !(comment.body ?? '').includes('<!-- switchboard-effect:'));
        const kept = people.slice(-ISSUE_COMMENTS_KEPT).map((comment) => ({
          ...(comment.user?.login ? { author: comment.user.login } : {}),
          body: clip(comment.body ?? '', 4_000),
        }));
        return {
          number: issue.number,
          title: issue.title,
          body: clip(issue.body ?? '', 16_000),
          comments: kept,
          omitted: all.length - kept.length,
        };
      });
    },

    async githubPullGet(input: T.PullGetInput): Promise<T.PullDetail> {
      const gh = await octokit(input.identity);
      const where = { ...splitRepo(input.repo), pull_number: input.number };
      return reading(`pull request ${input.repo}#${input.number}`, async () => {
        const { data: pr } = await gh.rest.pulls.get(where);
        const files = await gh.paginate(gh.rest.pulls.listFiles, { ...where, per_page: 100 });
        return {
          number: pr.number,
          title: pr.title,
          body: pr.body ?? '',
          state: pr.state,
          merged: pr.merged,
          draft: pr.draft ?? false,
          headRef: pr.head.ref,
          headSha: pr.head.sha,
          ...(pr.head.repo?.full_name ? { headRepo: pr.head.repo.full_name } : {}),
          baseRef: pr.base.ref,
          url: pr.html_url,
          files: files.map((f) => ({
            path: f.filename,
            status: f.status,
            additions: f.additions,
            deletions: f.deletions,
            patch: input.includeDiff === false ? undefined : f.patch,
          })),
        };
      });
    },

    async githubCommitChecks(input: T.CommitChecksInput): Promise<T.CommitChecks> {
      const gh = await octokit(input.identity);
      const where = { ...splitRepo(input.repo), ref: input.ref };
      return reading(`the checks of ${input.ref} in ${input.repo}`, async () => {
        const runs = await gh.paginate(gh.rest.checks.listForRef, { ...where, per_page: 100 });
        const { data: combined } = await gh.rest.repos.getCombinedStatusForRef(where);
        const checkRuns = runs.map((r) => ({ name: r.name, status: r.status, conclusion: r.conclusion }));
        const statuses = combined.statuses.map((s) => ({ context: s.context, state: s.state }));
        return { sha: combined.sha, overall: overall(checkRuns, statuses), checkRuns, statuses };
      });
    },

    async githubPullActivity(input: T.PullActivityInput): Promise<T.PullActivity> {
      const gh = await octokit(input.identity);
      const where = { ...splitRepo(input.repo), pull_number: input.number };
      return reading(`the reviews of ${input.repo}#${input.number}`, async () => {
        const reviews = await gh.paginate(gh.rest.pulls.listReviews, { ...where, per_page: 100 });
        const reviewComments = await gh.paginate(gh.rest.pulls.listReviewComments, { ...where, per_page: 100 });
        const comments = await gh.paginate(gh.rest.issues.listComments, {
          ...splitRepo(input.repo),
          issue_number: input.number,
          per_page: 100,
        });
        return {
          reviews: reviews.map((r) => ({ id: r.id, author: r.user?.login, state: r.state, body: r.body, commitId: r.commit_id ?? '' })),
          reviewComments: reviewComments.map((c) => ({
            id: c.id,
            author: c.user?.login,
            path: c.path,
            line: c.line ?? undefined,
            body: c.body,
            ...(c.pull_request_review_id ? { reviewId: c.pull_request_review_id } : {}),
            ...(c.in_reply_to_id ? { inReplyTo: c.in_reply_to_id } : {}),
          })),
          comments: comments.map((c) => ({ id: c.id, author: c.user?.login, body: c.body ?? '' })),
        };
      });
    },
  };
}

function issueSummary(issue: {
  number: number;
  title: string;
  state: string;
  labels: Array<string | { name?: string }>;
  user: { login: string } | null;
  updated_at: string;
}): T.IssueSummary {
  return {
    number: issue.number,
    title: issue.title,
    state: issue.state,
    labels: issue.labels.map((l) => (typeof l === 'string' ? l : (l.name ?? ''))),
    author: issue.user?.login,
    updatedAt: issue.updated_at,
  };
}

function overall(runs: T.CommitChecks['checkRuns'], statuses: T.CommitChecks['statuses']): T.CommitChecks['overall'] {
  const failed = ['failure', 'timed_out', 'cancelled', 'action_required', 'startup_failure'];
  if (
    runs.some((r) => r.conclusion && failed.includes(r.conclusion)) ||
    statuses.some((s) => s.state === 'failure' || s.state === 'error')
  ) {
    return 'failure';
  }
  if (runs.some((r) => r.status !== 'completed') || statuses.some((s) => s.state === 'pending')) return 'pending';
  return 'success';
}
