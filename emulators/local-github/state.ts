/** The in-memory side of the local GitHub: everything that is not in a git repository. */

export type Scope = 'read' | 'write';

/** A collaborator's role on a repository, as GitHub names the built-in ones, lowest first. */
export const COLLABORATOR_ROLES = ['read', 'triage', 'write', 'maintain', 'admin'] as const;
export type CollaboratorRole = (typeof COLLABORATOR_ROLES)[number];

export interface Comment {
  id: number;
  body: string;
  user: string;
  createdAt: string;
  updatedAt: string;
  /** Reactions as `content` and who gave it (one per user and content, as on GitHub). */
  reactions?: Array<{ id: number; content: string; user: string }>;
}
export interface Review {
  id: number;
  body: string;
  user: string;
  event: string;
  state: string;
  commitId: string;
  submittedAt: string;
}
export interface ReviewComment {
  id: number;
  body: string;
  user: string;
  path: string;
  /** The line the comment ends on, on its side of the diff (the new file on `RIGHT`, the old one on `LEFT`). */
  line: number;
  side: 'LEFT' | 'RIGHT';
  /** A comment on several lines starts here (on `startSide`). */
  startLine?: number;
  startSide?: 'LEFT' | 'RIGHT';
  /** Its legacy position in the file's patch (lines below the first hunk header). */
  position: number;
  /** The text of its ```suggestion block, when it has one (what "Commit suggestion" would put on the lines). */
  suggestion?: string;
  commitId: string;
  reviewId: number;
  reactions?: Array<{ id: number; content: string; user: string }>;
  /** A reply: the first comment of its thread (absent: this comment starts a review thread). */
  inReplyTo?: number;
  /** On a thread's first comment: who resolved the thread (GraphQL `resolveReviewThread`); absent while it is open. */
  resolvedBy?: string;
}

export interface PullState {
  head: string;
  base: string;
  draft: boolean;
  merged: boolean;
  /** Logins whose review was requested (and not yet given). */
  requestedReviewers?: string[];
  /** The head commit when merged (the branch may move on afterwards). */
  mergedHeadSha?: string;
  mergeCommitSha?: string;
}

export interface IssueState {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  /** Why a closed issue was closed, as GitHub says it (a merged `Fixes #n` closes as `completed`). */
  stateReason?: 'completed' | 'not_planned' | 'reopened';
  labels: string[];
  /** Logins the issue or pull request is assigned to. */
  assignees: string[];
  user: string;
  createdAt: string;
  updatedAt: string;
  comments: Comment[];
  reviews: Review[];
  reviewComments: ReviewComment[];
  pull?: PullState;
}

export interface CheckRunState {
  id: number;
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  started_at?: string;
  completed_at?: string;
  /** What the run reports, as GitHub's check run `output` (the log's tail in `text`). */
  output?: { title: string; summary: string; text?: string };
}
export interface StatusState {
  context: string;
  state: 'pending' | 'success' | 'failure' | 'error';
}

export interface RepoState {
  owner: string;
  name: string;
  /** The bare repository on disk. */
  dir: string;
  defaultBranch: string;
  private: boolean;
  /** Token scopes that cannot see it (GitHub answers them 404, as for a repository that does not exist). */
  hiddenFrom?: Scope[];
  /** People with a role on it, by lower-case login (the owner, when a user, is admin without being listed). */
  collaborators: Map<string, CollaboratorRole>;
  issues: Map<number, IssueState>;
  nextNumber: number;
  checkRuns: Map<string, CheckRunState[]>;
  statuses: Map<string, StatusState[]>;
  /** Branches under protection rules (`repos.getBranch` says `protected: true`). */
  protectedBranches?: string[];
}

/** One write the local GitHub applied, so tests can count effects. */
export interface WriteRecord {
  kind:
    | 'pull_request.create'
    | 'pull_request.update'
    | 'pull_request.merge'
    | 'review.create'
    | 'review_comment.create'
    | 'review_thread.resolve'
    | 'review_thread.unresolve'
    | 'comment.create'
    | 'comment.update'
    | 'reaction.create'
    | 'labels.set'
    | 'push'
    | 'issue.create'
    | 'issue.update'
    | 'assignees.set'
    | 'reviewers.request';
  repo: string;
  number?: number;
  id?: number;
  user: string;
  at: string;
  /** Whether the response to it was dropped by a fault. */
  responseDropped?: boolean;
}

export class LocalGitHubState {
  readonly repos = new Map<string, RepoState>();
  readonly writes: WriteRecord[] = [];
  /** Every API request as method and path, so a test can count reads too. */
  readonly requests: Array<{ method: string; path: string }> = [];
  private nextId = 1000;

  id(): number {
    return this.nextId++;
  }

  repo(owner: string, name: string): RepoState | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  /** How many writes of a kind were applied (optionally on one repo). */
  countWrites(kind: WriteRecord['kind'], repo?: string): number {
    return this.writes.filter((w) => w.kind === kind && (!repo || w.repo === repo)).length;
  }

  /**
   * A person's role on a repository as GitHub computes it: the owning user is admin, a
   * collaborator has their role, anyone else reads a public repository and has no role on a private one.
   */
  roleOf(repo: RepoState, login: string): CollaboratorRole | 'none' {
    if (login.toLowerCase() === repo.owner.toLowerCase()) return 'admin';
    return repo.collaborators.get(login.toLowerCase()) ?? (repo.private ? 'none' : 'read');
  }

  /** What a webhook says of a comment's author (`author_association`): a hint only, never a permission. */
  authorAssociation(repo: RepoState, login: string): 'OWNER' | 'COLLABORATOR' | 'NONE' {
    if (login.toLowerCase() === repo.owner.toLowerCase()) return 'OWNER';
    return repo.collaborators.has(login.toLowerCase()) ? 'COLLABORATOR' : 'NONE';
  }

  findComment(repo: RepoState, id: number): { issue: IssueState; comment: Comment } | undefined {
    for (const issue of repo.issues.values()) {
      const comment = issue.comments.find((c) => c.id === id);
      if (comment) return { issue, comment };
    }
    return undefined;
  }
}
