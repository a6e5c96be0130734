import { type Request, type Response } from 'express';
import { executeGraphQL, FieldError, type Schema } from './graphql';
import { pull as pullJson, repository, user } from './payloads';
import { now, type RestContext } from './rest-context';
import { type IssueState, type RepoState, type ReviewComment, type Scope } from './state';

/**
 * The local GitHub's GraphQL endpoint (`POST /api/graphql`, where Octokit's graphql client sends
 * an Enterprise base URL's queries): a pull request's review threads with `isResolved`, and the
 * `resolveReviewThread` / `unresolveReviewThread` mutations. A thread is a top-level review
 * comment and its replies; its node id is `PRRT_<first comment id>`. GitHub's answers: a token
 * that cannot write gets `FORBIDDEN` ("Resource not accessible by integration": resolving needs
 * the Contents write permission), an unknown id `NOT_FOUND`, a connection without `first` or `last`
 * `MISSING_PAGINATION_BOUNDARIES`, more than 100 `EXCESSIVE_PAGINATION`; the field is null.
 */
interface Ctx {
  rest: RestContext;
  scope: Scope;
  login: string;
}

interface Thread {
  repo: RepoState;
  item: IssueState;
  root: ReviewComment;
}

const MAX_PAGE = 100;

function page<T>(items: T[], args: { first?: number | null; last?: number | null; after?: string | null }, connection: string) {
  // A variable sent as null is as good as absent.
  const first = args.first ?? undefined;
  const last = args.last ?? undefined;
  if (first === undefined && last === undefined)
    throw new FieldError(
      'MISSING_PAGINATION_BOUNDARIES',
      `You must provide a \`first\` or \`last\` value to properly paginate the \`${connection}\` connection.`,
    );
  const size = Number(first ?? last);
  if (size > MAX_PAGE)
    throw new FieldError(
      'EXCESSIVE_PAGINATION',
      `Requesting ${size} records on the \`${connection}\` connection exceeds the \`${first !== undefined ? 'first' : 'last'}\` limit of ${MAX_PAGE} records.`,
    );
  const cursor = typeof args.after === 'string' ? Number(Buffer.from(args.after, 'base64').toString()) : NaN;
  const start = Number.isInteger(cursor) && cursor >= 0 ? cursor + 1 : 0;
  const slice = first !== undefined ? items.slice(start, start + size) : items.slice(Math.max(start, items.length - size));
  const end = items.indexOf(slice[slice.length - 1]);
  return {
    totalCount: items.length,
    nodes: slice,
    pageInfo: {
      hasNextPage: end >= 0 && end < items.length - 1,
      endCursor: slice.length ? Buffer.from(String(end)).toString('base64') : null,
    },
  };
}

function threadsOf(repo: RepoState, item: IssueState): Thread[] {
  return item.reviewComments.filter((comment) => comment.inReplyTo === undefined).map((root) => ({ repo, item, root }));
}

function findThread(ctx: Ctx, id: unknown): Thread {
  const match = typeof id === 'string' ? /^PRRT_(\d+)$/.exec(id) : null;
  for (const repo of match ? ctx.rest.state.repos.values() : []) {
    if (repo.hiddenFrom?.includes(ctx.scope)) continue;
    for (const item of repo.issues.values()) {
      const root = item.reviewComments.find((comment) => comment.id === Number(match![1]) && comment.inReplyTo === undefined);
      if (root) return { repo, item, root };
    }
  }
  throw new FieldError('NOT_FOUND', `Could not resolve to a node with the global id of '${String(id)}'.`);
}

/** Resolves or reopens a thread (repeatable: resolving a resolved thread changes nothing), with GitHub's webhook. */
function setResolved(ctx: Ctx, input: { threadId?: unknown } | undefined, resolved: boolean): Thread {
  if (ctx.scope !== 'write') throw new FieldError('FORBIDDEN', 'Resource not accessible by integration');
  const thread = findThread(ctx, input?.threadId);
  const { repo, item, root } = thread;
  if (Boolean(root.resolvedBy) === resolved) return thread;
  if (resolved) root.resolvedBy = ctx.login;
  else delete root.resolvedBy;
  item.updatedAt = now();
  ctx.rest.state.writes.push({
    kind: resolved ? 'review_thread.resolve' : 'review_thread.unresolve',
    repo: `${repo.owner}/${repo.name}`,
    number: item.number,
    id: root.id,
    user: ctx.login,
    at: now(),
  });
  ctx.rest.webhooks.emit('pull_request_review_thread', {
    action: resolved ? 'resolved' : 'unresolved',
    thread: {
      node_id: `PRRT_${root.id}`,
      comments: item.reviewComments.filter((c) => c.id === root.id || c.inReplyTo === root.id).map((c) => c.id),
    },
    pull_request: pullJson(ctx.rest.webUrl, repo, item),
    repository: repository(ctx.rest.webUrl, repo),
    sender: user(ctx.login),
  });
  return thread;
}

const SCHEMA: Schema<Ctx> = {
  Query: {
    repository: {
      type: 'Repository',
      args: ['owner', 'name'],
      resolve: (_parent, args, ctx) => {
        const repo = ctx.rest.state.repo(String(args.owner), String(args.name));
        if (!repo || repo.hiddenFrom?.includes(ctx.scope))
          throw new FieldError('NOT_FOUND', `Could not resolve to a Repository with the name '${args.owner}/${args.name}'.`);
        return repo;
      },
    },
    viewer: { type: 'Actor', resolve: (_parent, _args, ctx) => ({ login: ctx.login }) },
  },
  Mutation: {
    resolveReviewThread: {
      type: 'ResolveReviewThreadPayload',
      args: ['input'],
      resolve: (_parent, args, ctx) => ({
        clientMutationId: args.input?.clientMutationId ?? null,
        thread: setResolved(ctx, args.input, true),
      }),
    },
    unresolveReviewThread: {
      type: 'ResolveReviewThreadPayload',
      args: ['input'],
      resolve: (_parent, args, ctx) => ({
        clientMutationId: args.input?.clientMutationId ?? null,
        thread: setResolved(ctx, args.input, false),
      }),
    },
  },
  ResolveReviewThreadPayload: {
    clientMutationId: { type: 'String', resolve: (payload) => payload.clientMutationId },
    thread: { type: 'PullRequestReviewThread', resolve: (payload) => payload.thread },
  },
  Repository: {
    name: { type: 'String', resolve: (repo: RepoState) => repo.name },
    nameWithOwner: { type: 'String', resolve: (repo: RepoState) => `${repo.owner}/${repo.name}` },
    pullRequest: {
      type: 'PullRequest',
      args: ['number'],
      resolve: (repo: RepoState, args) => {
        const item = repo.issues.get(Number(args.number));
        if (!item?.pull) throw new FieldError('NOT_FOUND', `Could not resolve to a PullRequest with the number of ${args.number}.`);
        return { repo, item };
      },
    },
  },
  PullRequest: {
    number: { type: 'Int', resolve: ({ item }) => item.number },
    title: { type: 'String', resolve: ({ item }) => item.title },
    reviewThreads: {
      type: 'PullRequestReviewThreadConnection',
      args: ['first', 'last', 'after'],
      resolve: ({ repo, item }, args) => page(threadsOf(repo, item), args, 'reviewThreads'),
    },
  },
  PullRequestReviewThreadConnection: connection('PullRequestReviewThread'),
  PullRequestReviewCommentConnection: connection('PullRequestReviewComment'),
  PageInfo: {
    hasNextPage: { type: 'Boolean', resolve: (info) => info.hasNextPage },
    endCursor: { type: 'String', resolve: (info) => info.endCursor },
  },
  PullRequestReviewThread: {
    id: { type: 'ID', resolve: (thread: Thread) => `PRRT_${thread.root.id}` },
    isResolved: { type: 'Boolean', resolve: (thread: Thread) => Boolean(thread.root.resolvedBy) },
    path: { type: 'String', resolve: (thread: Thread) => thread.root.path },
    line: { type: 'Int', resolve: (thread: Thread) => thread.root.line },
    diffSide: { type: 'String', resolve: (thread: Thread) => thread.root.side },
    resolvedBy: { type: 'Actor', resolve: (thread: Thread) => (thread.root.resolvedBy ? { login: thread.root.resolvedBy } : null) },
    viewerCanResolve: { type: 'Boolean', resolve: (thread: Thread, _args, ctx) => ctx.scope === 'write' && !thread.root.resolvedBy },
    viewerCanReply: { type: 'Boolean', resolve: (_thread, _args, ctx) => ctx.scope === 'write' },
    comments: {
      type: 'PullRequestReviewCommentConnection',
      args: ['first', 'last', 'after'],
      resolve: ({ item, root }: Thread, args) =>
        page(
          item.reviewComments.filter((c) => c.id === root.id || c.inReplyTo === root.id),
          args,
          'comments',
        ),
    },
  },
  PullRequestReviewComment: {
    id: { type: 'ID', resolve: (comment: ReviewComment) => `PRRC_${comment.id}` },
    databaseId: { type: 'Int', resolve: (comment: ReviewComment) => comment.id },
    body: { type: 'String', resolve: (comment: ReviewComment) => comment.body },
    path: { type: 'String', resolve: (comment: ReviewComment) => comment.path },
    author: { type: 'Actor', resolve: (comment: ReviewComment) => ({ login: comment.user }) },
  },
  Actor: { login: { type: 'String', resolve: (actor) => actor.login } },
};

function connection(node: string): Schema<Ctx>[string] {
  return {
    totalCount: { type: 'Int', resolve: (page) => page.totalCount },
    nodes: { type: node, list: true, resolve: (page) => page.nodes },
    pageInfo: { type: 'PageInfo', resolve: (page) => page.pageInfo },
  };
}

/** `POST /api/graphql` (its JSON body parsed before): a token as on the REST API (401 without one), then the query. */
export function graphqlHandler(
  ctx: RestContext,
  scopeOf: (token: string) => Scope | undefined,
  loginOf: (token: string) => string,
): (req: Request, res: Response) => void {
  return (req, res) => {
    ctx.state.requests.push({ method: 'POST', path: '/graphql' });
    const match = /^(?:token|bearer)\s+(.+)$/i.exec(req.get('authorization') ?? '');
    const scope = match ? scopeOf(match[1]) : undefined;
    if (!match || !scope)
      return void res.status(401).json({ message: 'Bad credentials', documentation_url: 'https://docs.github.com/graphql' });
    try {
      res.json(executeGraphQL(SCHEMA, req.body ?? {}, { rest: ctx, scope, login: loginOf(match[1]) }));
    } catch {
      // A bug of this stand-in answers as GitHub's own failures do: JSON, never a page of HTML.
      res.status(500).json({ errors: [{ message: 'Something went wrong while executing your query.' }] });
    }
  };
}
