/**
 * The contract of the GitHub activities. Workflows import these types only.
 * Every input names the identity whose credential the call uses.
 */
/** The GitHub identity a run's profile grants. `none` has no credential at all. */
export type IdentityScope = 'none' | 'read' | 'write';

/** `owner/name`. */
export type RepoName = string;

interface OnRepo {
  repo: RepoName;
  /** The run's identity; reads default to `read`. */
  identity?: Exclude<IdentityScope, 'none'>;
}

export interface ReposInput {
  identity?: Exclude<IdentityScope, 'none'>;
  owner?: string;
  query?: string;
}
export interface RepoSummary {
  fullName: string;
  defaultBranch: string;
  private: boolean;
  pushedAt?: string;
}

export interface TreeInput extends OnRepo {
  ref?: string;
  path?: string;
  recursive?: boolean;
}
export interface TreeEntry {
  path: string;
  type: 'blob' | 'tree' | 'commit';
  size?: number;
}
export interface TreeResult {
  sha: string;
  entries: TreeEntry[];
  truncated: boolean;
}

export interface FileInput extends OnRepo {
  path: string;
  ref?: string;
}
export interface FileResult {
  path: string;
  sha: string;
  size: number;
  content: string;
  encoding: 'utf8' | 'base64';
}

export interface SearchCodeInput {
  identity?: Exclude<IdentityScope, 'none'>;
  query: string;
  repo?: RepoName;
  maxResults?: number;
}
export interface SearchCodeHit {
  repo: RepoName;
  path: string;
  fragments: string[];
}

export interface IssueListInput extends OnRepo {
  state?: 'open' | 'closed' | 'all';
  labels?: string[];
  maxResults?: number;
}
export interface IssueSummary {
  number: number;
  title: string;
  state: string;
  labels: string[];
  author?: string;
  updatedAt: string;
}
export interface IssueGetInput extends OnRepo {
  number: number;
}
export interface IssueDetail extends IssueSummary {
  body: string;
  comments: number;
  isPullRequest: boolean;
}

/** An issue as a ship unit is seeded with it: title, body and the people's comments (bounded). */
export interface IssueThread {
  number: number;
  title: string;
  body: string;
  comments: Array<{ author?: string; body: string }>;
  /** Comments left out: Switchboard's own, and the oldest past the bound. */
  omitted: number;
}

export interface PullGetInput extends OnRepo {
  number: number;
  includeDiff?: boolean;
}
export interface PullDetail {
  number: number;
  title: string;
  body: string;
  state: string;
  merged: boolean;
  draft: boolean;
  headRef: string;
  headSha: string;
  /** The repository the head branch lives in (`owner/name`); absent when its fork was deleted. */
  headRepo?: string;
  baseRef: string;
  url: string;
  files: Array<{ path: string; status: string; additions: number; deletions: number; patch?: string }>;
}

export interface CommitChecksInput extends OnRepo {
  ref: string;
}
export interface CommitChecks {
  sha: string;
  /** `success`, `failure` or `pending`, combining check runs and commit statuses. */
  overall: 'success' | 'failure' | 'pending';
  checkRuns: Array<{ name: string; status: string; conclusion: string | null }>;
  statuses: Array<{ context: string; state: string }>;
}

export interface PullActivityInput extends OnRepo {
  number: number;
}
export interface PullActivity {
  reviews: Array<{ id: number; author?: string; state: string; body: string; commitId: string }>;
  /**
   * `reviewId`: the review a line comment belongs to (absent in results recorded before it was kept);
   * `inReplyTo`: a reply's thread, by its first comment (absent: the comment starts a thread).
   */
  reviewComments: Array<{ id: number; author?: string; path: string; line?: number; body: string; reviewId?: number; inReplyTo?: number }>;
  comments: Array<{ id: number; author?: string; body: string }>;
}

export interface VetRepositoryInput {
  repo: RepoName;
  identity?: Exclude<IdentityScope, 'none'>;
}
export type VetRepositoryResult =
  | { ok: true; repo: RepoName; defaultBranch: string; private: boolean }
  | { ok: false; repo: RepoName; code: 'repo_not_visible' | 'repo_unverified'; reason: string };

/** Every write carries its effect key (`<workflowId>/<effect>/<seq>`), derived in the workflow. */
interface Effect extends OnRepo {
  effectKey: string;
  /**
   * The attempt; inside an activity Temporal's own attempt number is used, this is for a
   * caller outside one. Above 1 an at-most-once write looks for its marker before anything else.
   */
  attempt?: number;
}

/** Why a write was not made. */
export type RefusalCode =
  'forbidden' | 'not_found' | 'head_moved' | 'stale_lease' | 'already_merged' | 'not_mergeable' | 'rate_limited' | 'invalid';

/**
 * The outcome of a write. `confirmed`: it exists on GitHub. `unconfirmed`: an earlier attempt's
 * result was lost and its marker cannot be found; it was not sent again. `refused`: not made.
 */
export interface EffectResult {
  status: 'confirmed' | 'unconfirmed' | 'refused';
  effectKey: string;
  code?: RefusalCode;
  reason?: string;
  /** Milliseconds to wait before asking again, when refused as `rate_limited`. */
  retryAfterMs?: number;
  id?: number;
  number?: number;
  url?: string;
  sha?: string;
  /** A review: how many of its comments sit on the lines they concern (the rest are in its body). */
  inline?: number;
  /** A reply on a review thread: the single-comment review GitHub made to hold it. */
  reviewId?: number;
}

export interface PushBranchInput extends Effect {
  /** The workspace (its key) whose checkout's HEAD (or `sourceRef`) is pushed; git runs inside its sandbox. */
  workspaceKey?: string;
  /** Inputs recorded before the workspace key: the checkout's host path, `<dataDir>/workspaces/<name>/work`. */
  workingDirectory?: string;
  /**
   * The branch pushed to: the caller's own (under the deployment's branch prefix), or, with
   * `pullRequest`, that pull request's head branch, which the caller was admitted to push to
   * (the door then takes fast-forwards only).
   */
  branch: string;
  pullRequest?: number;
  sourceRef?: string;
  /** The SHA the remote branch is expected to be at (omit for "whatever we last fetched"). */
  expectedRemoteSha?: string;
  /**
   * Only ask whether this identity may push there (`git push --dry-run`: git's push handshake
   * needs write access, and the lease is checked), writing nothing.
   */
  dryRun?: boolean;
}

export interface OpenPullRequestInput extends Effect {
  head: string;
  base: string;
  title: string;
  body: string;
  draft?: boolean;
}
/** A review comment on the lines it concerns. */
export interface ReviewLineComment {
  path: string;
  /** The (last) line: in the head version on the RIGHT, in the base version on the LEFT. */
  line: number;
  /** Default RIGHT. */
  side?: 'LEFT' | 'RIGHT';
  /** The first line of a comment on several lines (same side). */
  startLine?: number;
  body: string;
  /** What the review's body says instead when the lines are not in the diff (GitHub would refuse the comment there). */
  fallback?: string;
}

export interface PostReviewInput extends Effect {
  number: number;
  /** The commit that was reviewed; the review is refused if the PR head moved past it. */
  commitSha: string;
  event: 'COMMENT' | 'APPROVE' | 'REQUEST_CHANGES';
  body: string;
  /** Comments on lines of the diff; one whose lines are outside the diff goes in the body (its `fallback`). */
  comments?: ReviewLineComment[];
}
export interface PostCommentInput extends Effect {
  number: number;
  body: string;
}
/** A reply in a review thread, to the comment that starts it (GitHub takes no reply to a reply). */
export interface ReplyToReviewCommentInput extends Effect {
  number: number;
  inReplyTo: number;
  body: string;
}
/** The review thread that a top-level review comment starts, to be resolved. */
export interface ResolveReviewThreadInput extends Effect {
  number: number;
  commentId: number;
}
export interface UpdateCommentInput extends Effect {
  commentId: number;
  body: string;
}
export interface CreateIssueInput extends Effect {
  title: string;
  body: string;
  labels?: string[];
}
/** Only the fields given change; `labels` is the complete new set. */
export interface UpdateIssueInput extends Effect {
  number: number;
  title?: string;
  body?: string;
  state?: 'open' | 'closed';
  labels?: string[];
}
export interface SetLabelsInput extends Effect {
  number: number;
  labels: string[];
}
export interface MergePullRequestInput extends Effect {
  number: number;
  expectedHeadSha: string;
  method?: 'merge' | 'squash' | 'rebase';
  title?: string;
}
