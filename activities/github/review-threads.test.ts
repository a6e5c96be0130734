import { type LocalGitHub } from '../../emulators/local-github';
import { createGitHubActivities } from './index';
import { createGitHubIdentities } from './identity';
import { localGitHubWithIdentities, READ_TOKEN } from './test-support';

let github: LocalGitHub;
let activities: ReturnType<typeof createGitHubActivities>;

beforeAll(async () => {
  const local = await localGitHubWithIdentities();
  github = local.github;
  activities = createGitHubActivities({ identities: local.identities });
});
afterAll(async () => {
  await github.close();
});

/** A PR with a review holding one line comment: the thread a finding's answers go to. */
async function threadOnPullRequest(name: string) {
  github.createRepo('acme', name, { 'src/a.js': 'one\ntwo\n' });
  const repo = `acme/${name}`;
  const head = github.commit(repo, 'feature', { 'src/a.js': 'one\nTWO\n' });
  const opened = await activities.openOrUpdatePullRequest({
    repo,
    effectKey: `u/${name}/pr`,
    head: 'feature',
    base: 'main',
    title: 'T',
    body: 'B',
  });
  await activities.postReview({
    repo,
    number: opened.number!,
    commitSha: head,
    event: 'COMMENT',
    body: 'One finding.',
    comments: [{ path: 'src/a.js', line: 2, body: 'Shouting.' }],
    effectKey: `u/${name}/review`,
  });
  const [root] = github.state.repo('acme', name)!.issues.get(opened.number!)!.reviewComments;
  return { repo, number: opened.number!, root };
}

describe('replies on a review thread (at-most-once)', () => {
  test('posts once; a retry after a dropped answer finds it; a retry with no trace is unconfirmed and posts nothing', async () => {
    const { repo, number, root } = await threadOnPullRequest('reply');
    const input = { repo, number, inReplyTo: root.id, body: 'Fixed in abc.', effectKey: 'unit:acme/reply#1/reply/F1/1' };
    github.faults.dropResponse({ method: 'POST', path: '/replies' });
    await expect(activities.replyToReviewComment(input)).rejects.toThrow();
    const retried = await activities.replyToReviewComment({ ...input, attempt: 2 });
    expect(retried).toMatchObject({ status: 'confirmed', effectKey: input.effectKey });
    // A reset workflow asks again as a first attempt: it finds the reply, never a second.
    expect(await activities.replyToReviewComment(input)).toMatchObject({ status: 'confirmed', id: retried.id });
    const replies = github.state
      .repo('acme', 'reply')!
      .issues.get(number)!
      .reviewComments.filter((c) => c.inReplyTo === root.id);
    expect(replies).toHaveLength(1);
    expect(replies[0].body).toContain('Fixed in abc.');
    expect(replies[0].body).toContain('<!-- switchboard-effect: unit:acme/reply#1/reply/F1/1 -->');

    const lost = await activities.replyToReviewComment({ ...input, effectKey: 'unit:acme/reply#1/reply/F2/1', attempt: 2 });
    expect(lost).toMatchObject({ status: 'unconfirmed' });
    expect(github.state.countWrites('review_comment.create', repo)).toBe(1);
  });

  test('a comment that is not there is refused, not retried', async () => {
    const { repo, number } = await threadOnPullRequest('reply-missing');
    const answer = await activities.replyToReviewComment({ repo, number, inReplyTo: 424242, body: 'x', effectKey: 'k/missing' });
    expect(answer).toMatchObject({ status: 'refused', code: 'not_found' });
  });
});

describe('resolving a review thread (repeatable, GraphQL)', () => {
  test('resolves the thread its first comment starts, and again changes nothing', async () => {
    const { repo, number, root } = await threadOnPullRequest('resolve');
    const input = { repo, number, commentId: root.id, effectKey: 'unit:acme/resolve#1/resolve/F1' };
    expect(await activities.resolveReviewThread(input)).toMatchObject({ status: 'confirmed' });
    expect(root.resolvedBy).toBe('switchboard[bot]');
    expect(await activities.resolveReviewThread({ ...input, attempt: 2 })).toMatchObject({ status: 'confirmed' });
    expect(github.state.countWrites('review_thread.resolve', repo)).toBe(1);
  });

  test('says why GitHub refused: no write permission, no such thread', async () => {
    const { repo, number, root } = await threadOnPullRequest('resolve-refused');
    const reader = createGitHubActivities({
      identities: createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl, tokens: { read: READ_TOKEN, write: READ_TOKEN } }),
    });
    const forbidden = await reader.resolveReviewThread({ repo, number, commentId: root.id, effectKey: 'k/forbidden' });
    expect(forbidden).toMatchObject({ status: 'refused', code: 'forbidden' });
    expect(forbidden.reason).toContain('Resource not accessible by integration');
    expect(root.resolvedBy).toBeUndefined();
    const missing = await activities.resolveReviewThread({ repo, number, commentId: 424242, effectKey: 'k/missing' });
    expect(missing).toMatchObject({ status: 'refused', code: 'not_found' });
    const noPull = await activities.resolveReviewThread({ repo, number: 99, commentId: root.id, effectKey: 'k/no-pull' });
    expect(noPull).toMatchObject({ status: 'refused', code: 'not_found' });
  });
});
