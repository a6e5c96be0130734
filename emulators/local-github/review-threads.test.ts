import { GraphqlResponseError } from '@octokit/graphql';
import { createOctokit } from '../../activities/github/identity';
import { startLocalGitHub, type LocalGitHub } from '.';

/**
 * Issue 33's part of the local GitHub, driven by the real Octokit (REST and GraphQL clients): replies
 * on a review thread (`in_reply_to` and the replies endpoint), each a single-comment review with
 * GitHub's two webhooks; review threads with `isResolved`; `resolveReviewThread` and
 * `unresolveReviewThread`; and the refusals GitHub gives (a reply to a reply, an unknown comment,
 * a token that cannot write, an unknown thread, a connection without `first`, a bad token).
 */
const THREADS = `query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 50) {
        totalCount
        nodes { id isResolved path line resolvedBy { login } comments(first: 20) { nodes { databaseId body author { login } } } }
      }
    }
  }
}`;
const RESOLVE = 'mutation($id: ID!) { resolveReviewThread(input: { threadId: $id }) { thread { id isResolved resolvedBy { login } } } }';
const UNRESOLVE = 'mutation($id: ID!) { unresolveReviewThread(input: { threadId: $id }) { thread { isResolved } } }';

/** A thread as THREADS selects it. */
interface Thread {
  id: string;
  isResolved: boolean;
  path: string;
  line: number;
  resolvedBy: { login: string } | null;
  comments: { nodes: Array<{ databaseId: number; body: string; author: { login: string } }> };
}

describe('the local GitHub’s review threads', () => {
  let github: LocalGitHub;
  const events: Array<{ event: string; payload: Record<string, any> }> = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  const as = (token: string) => createOctokit(github.apiUrl, token);
  const where = { owner: 'acme', repo: 'threads' };

  beforeAll(async () => {
    github = await startLocalGitHub({
      tokens: { read: ['read-token'], write: ['bot-token', 'ana-token'] },
      logins: { 'ana-token': 'ana' },
    });
    github.webhooks.subscribe((event, payload) => events.push({ event, payload: payload as Record<string, unknown> }));
    github.createRepo('acme', 'threads', { 'src/a.js': 'one\ntwo\nthree\n' }, { collaborators: { ana: 'write' } });
  });
  afterAll(async () => {
    await github.close();
  });

  it('replies on a thread, lists its threads, resolves and reopens one, and refuses what GitHub refuses', async () => {
    github.commit('acme/threads', 'change', { 'src/a.js': 'one\nTWO\nthree\n' });
    const bot = as('bot-token');
    const ana = as('ana-token');
    const { data: pr } = await bot.rest.pulls.create({ ...where, head: 'change', base: 'main', title: 'Change' });
    const { data: review } = await bot.rest.pulls.createReview({
      ...where,
      pull_number: pr.number,
      commit_id: pr.head.sha,
      event: 'COMMENT',
      body: 'One finding.',
      comments: [{ path: 'src/a.js', line: 2, side: 'RIGHT', body: 'Shouting.' }],
    });
    const [root] = (await bot.rest.pulls.listReviewComments({ ...where, pull_number: pr.number })).data;
    expect(root).toMatchObject({ pull_request_review_id: review.id, path: 'src/a.js', line: 2 });
    expect(root).not.toHaveProperty('in_reply_to_id');

    // A reply with the replies endpoint and one with `in_reply_to`: each its own review, announced twice.
    events.length = 0;
    const { data: first, status } = await bot.rest.pulls.createReplyForReviewComment({
      ...where,
      pull_number: pr.number,
      comment_id: root.id,
      body: 'Fixed in abc.',
    });
    expect(status).toBe(201);
    expect(first).toMatchObject({ in_reply_to_id: root.id, path: 'src/a.js', line: 2, user: { login: 'switchboard[bot]' } });
    const { data: second } = await ana.rest.pulls.createReviewComment({
      ...where,
      pull_number: pr.number,
      body: 'Thanks!',
      in_reply_to: root.id,
      // Ignored with in_reply_to, as on GitHub.
      commit_id: 'not-a-commit',
      path: 'elsewhere.js',
    });
    expect(second).toMatchObject({ in_reply_to_id: root.id, path: 'src/a.js', user: { login: 'ana' } });
    expect(events.map(({ event, payload }) => [event, payload.action, payload.sender.login])).toEqual([
      ['pull_request_review_comment', 'created', 'switchboard[bot]'],
      ['pull_request_review', 'submitted', 'switchboard[bot]'],
      ['pull_request_review_comment', 'created', 'ana'],
      ['pull_request_review', 'submitted', 'ana'],
    ]);
    expect(events[3].payload.review).toMatchObject({ id: second.pull_request_review_id, state: 'COMMENTED', body: '' });
    expect(events[2].payload.comment).toMatchObject({ in_reply_to_id: root.id, pull_request_review_id: second.pull_request_review_id });

    // Refusals: a reply to a reply, a comment that is not on this PR, a read token, no body.
    const status_ = (promise: Promise<unknown>) =>
      promise.then(
        () => 200,
        (error: { status: number }) => error.status,
      );
    expect(
      await status_(bot.rest.pulls.createReplyForReviewComment({ ...where, pull_number: pr.number, comment_id: first.id, body: 'x' })),
    ).toBe(422);
    expect(
      await status_(bot.rest.pulls.createReplyForReviewComment({ ...where, pull_number: pr.number, comment_id: 999_999, body: 'x' })),
    ).toBe(404);
    expect(
      await status_(
        as('read-token').rest.pulls.createReplyForReviewComment({ ...where, pull_number: pr.number, comment_id: root.id, body: 'x' }),
      ),
    ).toBe(403);
    expect(
      await status_(bot.rest.pulls.createReplyForReviewComment({ ...where, pull_number: pr.number, comment_id: root.id, body: '' })),
    ).toBe(422);

    // The thread through GraphQL: open, with the first comment and its two replies.
    const threads = async (token = 'read-token') =>
      (
        await as(token).graphql<{ repository: { pullRequest: { reviewThreads: { totalCount: number; nodes: Thread[] } } } }>(THREADS, {
          owner: 'acme',
          name: 'threads',
          number: pr.number,
        })
      ).repository.pullRequest.reviewThreads;
    const before = await threads();
    expect(before.totalCount).toBe(1);
    const [thread] = before.nodes;
    expect(thread).toMatchObject({ id: `PRRT_${root.id}`, isResolved: false, path: 'src/a.js', line: 2, resolvedBy: null });
    expect(thread.comments.nodes.map((c) => [c.databaseId, c.author.login])).toEqual([
      [root.id, 'switchboard[bot]'],
      [first.id, 'switchboard[bot]'],
      [second.id, 'ana'],
    ]);

    // A read token may not resolve (GitHub gates it on Contents write), and an unknown id is not found: null and an error.
    const refusal = async (token: string, id: string) => {
      const error = await as(token)
        .graphql(RESOLVE, { id })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(GraphqlResponseError);
      const { errors, data } = error as GraphqlResponseError<{ resolveReviewThread: null }>;
      expect(data).toEqual({ resolveReviewThread: null });
      return errors![0];
    };
    expect(await refusal('read-token', thread.id)).toMatchObject({
      type: 'FORBIDDEN',
      path: ['resolveReviewThread'],
      message: 'Resource not accessible by integration',
    });
    expect(await refusal('bot-token', 'PRRT_424242')).toMatchObject({
      type: 'NOT_FOUND',
      message: "Could not resolve to a node with the global id of 'PRRT_424242'.",
    });
    expect((await threads()).nodes[0].isResolved).toBe(false);

    // Resolved by the write token, once (resolving again changes nothing), then reopened.
    events.length = 0;
    const resolved = await bot.graphql<{ resolveReviewThread: { thread: unknown } }>(RESOLVE, { id: thread.id });
    expect(resolved.resolveReviewThread.thread).toEqual({ id: thread.id, isResolved: true, resolvedBy: { login: 'switchboard[bot]' } });
    await bot.graphql(RESOLVE, { id: thread.id });
    expect((await threads()).nodes[0]).toMatchObject({ isResolved: true, resolvedBy: { login: 'switchboard[bot]' } });
    expect(github.state.countWrites('review_thread.resolve')).toBe(1);
    expect(events.map(({ event, payload }) => [event, payload.action, payload.thread.node_id])).toEqual([
      ['pull_request_review_thread', 'resolved', thread.id],
    ]);
    await ana.graphql(UNRESOLVE, { id: thread.id });
    expect((await threads()).nodes[0]).toMatchObject({ isResolved: false, resolvedBy: null });
  });

  it('answers a malformed query, a connection without bounds and a bad token as GitHub does', async () => {
    const raw = (body: unknown, token = 'read-token') =>
      fetch(github.apiUrl.replace(/\/v3$/, '/graphql'), {
        method: 'POST',
        headers: { authorization: `bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    type Answer = { data?: Record<string, unknown>; errors: Array<Record<string, unknown>> };
    expect((await raw({ query: '{ viewer { login } }' }, 'nope')).status).toBe(401);
    const unknown = await (await raw({ query: '{ repository(owner: "acme", name: "threads") { colour } }' })).json();
    expect(unknown).toEqual({
      errors: [
        expect.objectContaining({
          message: "Field 'colour' doesn't exist on type 'Repository'",
          extensions: expect.objectContaining({ code: 'undefinedField' }),
          locations: [{ line: 1, column: 48 }],
        }),
      ],
    });
    const unbounded = (await (
      await raw({ query: '{ repository(owner: "acme", name: "threads") { pullRequest(number: 1) { reviewThreads { totalCount } } } }' })
    ).json()) as Answer;
    expect(unbounded.data).toEqual({ repository: { pullRequest: { reviewThreads: null } } });
    expect(unbounded.errors[0]).toMatchObject({
      type: 'MISSING_PAGINATION_BOUNDARIES',
      path: ['repository', 'pullRequest', 'reviewThreads'],
    });
    const missing = await (await raw({ query: '{ repository(owner: "acme", name: "nope") { name } }' })).json();
    expect(missing).toMatchObject({ data: { repository: null }, errors: [{ type: 'NOT_FOUND', path: ['repository'] }] });
    const broken = (await (await raw({ query: '{ viewer { login }' })).json()) as Answer;
    expect(broken.errors[0].message).toBe('Parse error on end of input');
    const viewer = await (await raw({ query: 'query Me { viewer { login } }', operationName: 'Me' }, 'ana-token')).json();
    expect(viewer).toEqual({ data: { viewer: { login: 'ana' } } });
  });
});
