import { revParse } from './git-store';
import { type IssueState, type RepoState, type Review, type ReviewComment } from './state';

/** GitHub's JSON for the objects the REST routes and webhooks return (the fields Octokit users read). */
export function user(login: string) {
  return { login, id: Math.abs(hash(login)), type: login.endsWith('[bot]') ? 'Bot' : 'User' };
}

export function repository(base: string, repo: RepoState) {
  const fullName = `${repo.owner}/${repo.name}`;
  return {
    id: Math.abs(hash(fullName)),
    name: repo.name,
    full_name: fullName,
    owner: user(repo.owner),
    private: repo.private,
    default_branch: repo.defaultBranch,
    html_url: `${base}/${fullName}`,
    pushed_at: new Date(0).toISOString(),
    permissions: { admin: false, push: true, pull: true },
  };
}

export function headSha(repo: RepoState, issue: IssueState): string {
  const pull = issue.pull!;
  if (pull.merged && pull.mergedHeadSha) return pull.mergedHeadSha;
  return revParse(repo.dir, `refs/heads/${pull.head}`) ?? '0'.repeat(40);
}

export function issue(base: string, repo: RepoState, item: IssueState) {
  const url = `${base}/${repo.owner}/${repo.name}/${item.pull ? 'pull' : 'issues'}/${item.number}`;
  return {
    id: item.number + 500_000,
    number: item.number,
    title: item.title,
    body: item.body,
    state: item.state,
    state_reason: item.stateReason ?? null,
    labels: item.labels.map((name) => ({ name })),
    assignee: item.assignees?.[0] ? user(item.assignees[0]) : null,
    assignees: (item.assignees ?? []).map(user),
    user: user(item.user),
    comments: item.comments.length,
    created_at: item.createdAt,
    updated_at: item.updatedAt,
    html_url: url,
    pull_request: item.pull ? { url, html_url: url } : undefined,
  };
}

export function pull(base: string, repo: RepoState, item: IssueState) {
  const p = item.pull!;
  const sha = headSha(repo, item);
  return {
    ...issue(base, repo, item),
    draft: p.draft,
    merged: p.merged,
    requested_reviewers: (p.requestedReviewers ?? []).map(user),
    mergeable: !p.merged && item.state === 'open',
    merge_commit_sha: p.mergeCommitSha ?? null,
    head: { ref: p.head, sha, label: `${repo.owner}:${p.head}`, repo: repository(base, repo) },
    base: {
      ref: p.base,
      sha: revParse(repo.dir, `refs/heads/${p.base}`) ?? '',
      label: `${repo.owner}:${p.base}`,
      repo: repository(base, repo),
    },
  };
}

function hash(text: string): number {
  let h = 0;
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) | 0;
  return h;
}

/** A review as GitHub's REST and webhooks show it. */
export function reviewPayload(base: string, repo: RepoState, item: IssueState, r: Review) {
  return {
    id: r.id,
    node_id: `PRR_${r.id}`,
    body: r.body,
    state: r.state,
    commit_id: r.commitId,
    user: user(r.user),
    submitted_at: r.submittedAt,
    html_url: `${base}/${repo.owner}/${repo.name}/pull/${item.number}#pullrequestreview-${r.id}`,
  };
}

/** A review comment as GitHub's REST and webhooks show it (`in_reply_to_id` on a reply). */
export function commentJson(c: ReviewComment) {
  return {
    id: c.id,
    node_id: `PRRC_${c.id}`,
    body: c.body,
    path: c.path,
    line: c.line,
    side: c.side,
    start_line: c.startLine ?? null,
    start_side: c.startSide ?? null,
    original_line: c.line,
    position: c.position,
    commit_id: c.commitId,
    user: user(c.user),
    pull_request_review_id: c.reviewId,
    ...(c.inReplyTo !== undefined ? { in_reply_to_id: c.inReplyTo } : {}),
  };
}
