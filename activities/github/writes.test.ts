import { type LocalGitHub } from '../../emulators/local-github';
import { type GitHubIdentities } from './identity';
import { createGitHubActivities } from './index';
import { localGitHubWithIdentities } from './test-support';

let github: LocalGitHub;
let identities: GitHubIdentities;
let activities: ReturnType<typeof createGitHubActivities>;
let counter = 0;

beforeAll(async () => {
  ({ github, identities } = await localGitHubWithIdentities());
  activities = createGitHubActivities({ identities });
});
afterAll(async () => {
  await github.close();
});

/** A fresh repository with an open PR from `feature` (someone else's commit on it). */
async function repoWithPullRequest() {
  const name = `repo-${++counter}`;
  github.createRepo('acme', name, { 'README.md': '# hello\n' });
  const repo = `acme/${name}`;
  const head = github.commit(repo, 'feature', { 'src/a.ts': 'export const a = 1;\n' });
  const opened = await activities.openOrUpdatePullRequest({
    repo,
    effectKey: `wf-${name}/open/1`,
    head: 'feature',
    base: 'main',
    title: 'Add a',
    body: 'Adds a.',
  });
  expect(opened.status).toBe('confirmed');
  return { repo, number: opened.number!, head };
}

describe('at-most-once writes under a dropped response', () => {
  test('opening a pull request: one PR, the retry confirms it', async () => {
    github.createRepo('acme', 'open-drop', { 'README.md': 'x\n' });
    github.commit('acme/open-drop', 'topic', { 'b.txt': 'b\n' });
    github.faults.dropResponse({ method: 'POST', path: '/pulls' });
    const input = {
      repo: 'acme/open-drop',
      effectKey: 'unit:acme/open-drop#x/open-pr/1',
      head: 'topic',
      base: 'main',
      title: 'T',
      body: 'B',
    };
    await expect(activities.openOrUpdatePullRequest(input)).rejects.toThrow();
    const retry = await activities.openOrUpdatePullRequest({ ...input, attempt: 2 });
    expect(retry).toMatchObject({ status: 'confirmed', number: 1 });
    expect(github.state.countWrites('pull_request.create', 'acme/open-drop')).toBe(1);
  });

  test('opening a pull request whose first attempt never reached GitHub: the retry opens it, never unconfirmed', async () => {
    github.createRepo('acme', 'open-lost', { 'README.md': 'x\n' });
    github.commit('acme/open-lost', 'topic', { 'b.txt': 'b\n' });
    github.faults.serverErrors({ method: 'POST', path: /\/pulls$/ }, 1, 502);
    const input = {
      repo: 'acme/open-lost',
      effectKey: 'unit:acme/open-lost#x/open-pr/1',
      head: 'topic',
      base: 'main',
      title: 'T',
      body: 'B',
    };
    await expect(activities.openOrUpdatePullRequest(input)).rejects.toThrow();
    expect(await activities.openOrUpdatePullRequest({ ...input, attempt: 2 })).toMatchObject({ status: 'confirmed', number: 1 });
    expect(await activities.openOrUpdatePullRequest({ ...input, attempt: 3 })).toMatchObject({ status: 'confirmed', number: 1 });
    expect(github.state.countWrites('pull_request.create', 'acme/open-lost')).toBe(1);
  });

  test('a retry does not open again a pull request of ours that a person closed meanwhile', async () => {
    github.createRepo('acme', 'open-closed', { 'README.md': 'x\n' });
    github.commit('acme/open-closed', 'topic', { 'b.txt': 'b\n' });
    github.faults.dropResponse({ method: 'POST', path: '/pulls' });
    const input = {
      repo: 'acme/open-closed',
      effectKey: 'unit:acme/open-closed#x/open-pr/1',
      head: 'topic',
      base: 'main',
      title: 'T',
      body: 'B',
    };
    await expect(activities.openOrUpdatePullRequest(input)).rejects.toThrow();
    github.state.repo('acme', 'open-closed')!.issues.get(1)!.state = 'closed';
    expect(await activities.openOrUpdatePullRequest({ ...input, attempt: 2 })).toMatchObject({ status: 'refused', number: 1 });
    expect(github.state.countWrites('pull_request.create', 'acme/open-closed')).toBe(1);
  });

  test('a comment: one comment, the retry finds its marker', async () => {
    const { repo, number } = await repoWithPullRequest();
    github.faults.dropResponse({ method: 'POST', path: /\/comments$/ });
    const input = { repo, number, effectKey: 'run:t/comment/1', body: 'Working on it.' };
    await expect(activities.postComment(input)).rejects.toThrow();
    const retry = await activities.postComment({ ...input, attempt: 2 });
    expect(retry.status).toBe('confirmed');
    expect(retry.id).toBe(github.state.writes.find((w) => w.kind === 'comment.create' && w.repo === repo)?.id);
    expect(github.state.countWrites('comment.create', repo)).toBe(1);
  });

  test('a review: one review, the retry confirms it even though the head moved since', async () => {
    const { repo, number, head } = await repoWithPullRequest();
    github.faults.dropResponse({ method: 'POST', path: /\/reviews$/ });
    const input = { repo, number, commitSha: head, event: 'COMMENT' as const, effectKey: 'unit:x/review/1', body: 'Looks fine.' };
    await expect(activities.postReview(input)).rejects.toThrow();
    github.commit(repo, 'feature', { 'src/b.ts': 'export const b = 2;\n' });
    const retry = await activities.postReview({ ...input, attempt: 2 });
    expect(retry).toMatchObject({ status: 'confirmed', sha: head });
    expect(github.state.countWrites('review.create', repo)).toBe(1);
  });

  test('a merge: one merge, the retry confirms it at the expected head', async () => {
    const { repo, number, head } = await repoWithPullRequest();
    github.faults.dropResponse({ method: 'PUT', path: /\/merge$/ });
    const input = { repo, number, expectedHeadSha: head, effectKey: 'unit:x/merge/1' };
    await expect(activities.mergePullRequest(input)).rejects.toThrow();
    expect(await activities.mergePullRequest({ ...input, attempt: 2 })).toMatchObject({ status: 'confirmed' });
    expect(github.state.countWrites('pull_request.merge', repo)).toBe(1);
  });

  test('a merge whose first attempt never reached GitHub is merged by the retry, never left unconfirmed', async () => {
    const { repo, number, head } = await repoWithPullRequest();
    github.faults.serverErrors({ method: 'PUT', path: /\/merge$/ }, 1, 502);
    const input = { repo, number, expectedHeadSha: head, effectKey: 'unit:x/merge/lost' };
    await expect(activities.mergePullRequest(input)).rejects.toThrow();
    expect(await activities.mergePullRequest({ ...input, attempt: 2 })).toMatchObject({ status: 'confirmed', number });
    expect(github.state.countWrites('pull_request.merge', repo)).toBe(1);
    // A third attempt (its answer lost too) still confirms, and merges nothing more.
    expect(await activities.mergePullRequest({ ...input, attempt: 3 })).toMatchObject({ status: 'confirmed' });
    expect(github.state.countWrites('pull_request.merge', repo)).toBe(1);
  });

  test('a merge retry after the head moved is refused, not merged at the new head', async () => {
    const { repo, number, head } = await repoWithPullRequest();
    github.faults.serverErrors({ method: 'PUT', path: /\/merge$/ }, 1, 502);
    const input = { repo, number, expectedHeadSha: head, effectKey: 'unit:x/merge/moved' };
    await expect(activities.mergePullRequest(input)).rejects.toThrow();
    github.commit(repo, 'feature', { 'src/c.ts': 'export const c = 3;\n' });
    expect(await activities.mergePullRequest({ ...input, attempt: 2 })).toMatchObject({ status: 'refused', code: 'head_moved' });
    expect(github.state.countWrites('pull_request.merge', repo)).toBe(0);
  });

  test('a comment whose first attempt left no trace is unconfirmed and not sent again', async () => {
    const { repo, number } = await repoWithPullRequest();
    github.faults.serverErrors({ method: 'POST', path: /\/comments$/ }, 1, 502);
    const input = { repo, number, effectKey: 'run:t/comment/lost', body: 'Hello' };
    await expect(activities.postComment(input)).rejects.toThrow();
    const retry = await activities.postComment({ ...input, attempt: 2 });
    expect(retry.status).toBe('unconfirmed');
    expect(retry.reason).toMatch(/not sent again/);
    expect(github.state.countWrites('comment.create', repo)).toBe(0);
  });
});

describe('a workflow reset repeats a write as a first attempt: it finds what it wrote, never writes twice', () => {
  test('a comment', async () => {
    const { repo, number } = await repoWithPullRequest();
    const input = { repo, number, effectKey: 'run:t/comment/reset', body: 'Once.' };
    const first = await activities.postComment({ ...input, attempt: 1 });
    expect(await activities.postComment({ ...input, attempt: 1 })).toEqual(first);
    expect(github.state.countWrites('comment.create', repo)).toBe(1);
  });

  test('a pull request a person closed since is not opened again', async () => {
    github.createRepo('acme', 'open-reset', { 'README.md': 'x\n' });
    github.commit('acme/open-reset', 'topic', { 'b.txt': 'b\n' });
    const input = {
      repo: 'acme/open-reset',
      effectKey: 'unit:acme/open-reset#x/open-pr/1',
      head: 'topic',
      base: 'main',
      title: 'T',
      body: 'B',
    };
    const opened = await activities.openOrUpdatePullRequest({ ...input, attempt: 1 });
    github.state.repo('acme', 'open-reset')!.issues.get(opened.number!)!.state = 'closed';
    expect(await activities.openOrUpdatePullRequest({ ...input, attempt: 1 })).toMatchObject({ status: 'refused', number: opened.number });
    expect(github.state.countWrites('pull_request.create', 'acme/open-reset')).toBe(1);
  });

  test('a merge it made is confirmed, not refused as merged by someone else', async () => {
    const { repo, number, head } = await repoWithPullRequest();
    const input = { repo, number, expectedHeadSha: head, effectKey: 'unit:x/merge/reset' };
    expect(await activities.mergePullRequest({ ...input, attempt: 1 })).toMatchObject({ status: 'confirmed' });
    expect(await activities.mergePullRequest({ ...input, attempt: 1 })).toMatchObject({ status: 'confirmed', number });
    expect(await activities.mergePullRequest({ ...input, effectKey: 'unit:y/merge/other', attempt: 1 })).toMatchObject({
      status: 'refused',
      code: 'already_merged',
    });
    expect(github.state.countWrites('pull_request.merge', repo)).toBe(1);
  });
});

describe('repeatable writes', () => {
  test('setting labels twice under a dropped response leaves exactly those labels', async () => {
    const { repo, number } = await repoWithPullRequest();
    github.faults.dropResponse({ method: 'PUT', path: /\/labels$/ });
    const input = { repo, number, labels: ['switchboard', 'ready'], effectKey: 'unit:x/labels/1' };
    await expect(activities.setLabels(input)).rejects.toThrow();
    expect(await activities.setLabels({ ...input, attempt: 2 })).toMatchObject({ status: 'confirmed' });
    const issue = await activities.githubIssueGet({ repo, number });
    expect(issue.labels).toEqual(['switchboard', 'ready']);
  });

  test('updating a comment keeps one comment with the new body', async () => {
    const { repo, number } = await repoWithPullRequest();
    const posted = await activities.postComment({ repo, number, effectKey: 'run:t/card/1', body: 'Step 1' });
    const updated = await activities.updateComment({ repo, commentId: posted.id!, effectKey: 'run:t/card/1', body: 'Step 2' });
    expect(updated).toMatchObject({ status: 'confirmed', id: posted.id });
    const { comments } = await activities.githubPullActivity({ repo, number });
    expect(comments).toHaveLength(1);
    expect(comments[0].body).toContain('Step 2');
  });
});

describe('a review with comments on its lines', () => {
  test('a comment whose lines are in the diff sits on them; one outside goes in the body; a suggestion keeps its block', async () => {
    const { repo, number, head } = await repoWithPullRequest();
    const result = await activities.postReview({
      repo,
      number,
      commitSha: head,
      event: 'COMMENT',
      effectKey: 'unit:x/review/lines',
      body: '**Verdict: changes requested**',
      comments: [
        { path: 'src/a.ts', line: 1, body: 'Use two.\n\n```suggestion\nexport const a = 2;\n```', fallback: '1. on a' },
        { path: 'README.md', line: 1, body: 'Not in this PR.', fallback: '2. **nit** `README.md:1` — untouched' },
      ],
    });
    expect(result).toMatchObject({ status: 'confirmed', inline: 1 });
    const pull = github.state.repo('acme', repo.split('/')[1])!.issues.get(number)!;
    expect(pull.reviewComments).toEqual([
      expect.objectContaining({ path: 'src/a.ts', line: 1, side: 'RIGHT', suggestion: 'export const a = 2;' }),
    ]);
    expect(pull.reviews[0].body).toContain('**Outside the diff**\n\n2. **nit** `README.md:1` — untouched');
    expect(pull.reviews[0].body).not.toContain('1. on a');
  });

  test('a review GitHub refuses for its comments’ lines is posted once, everything in its body', async () => {
    const { repo, number, head } = await repoWithPullRequest();
    github.faults.serverErrors({ method: 'POST', path: /\/reviews$/ }, 1, 422);
    const result = await activities.postReview({
      repo,
      number,
      commitSha: head,
      event: 'COMMENT',
      effectKey: 'unit:x/review/refused-lines',
      body: 'Review.',
      comments: [{ path: 'src/a.ts', line: 1, body: 'x', fallback: '1. the finding' }],
    });
    expect(result).toMatchObject({ status: 'confirmed', inline: 0 });
    const pull = github.state.repo('acme', repo.split('/')[1])!.issues.get(number)!;
    expect(pull.reviews).toHaveLength(1);
    expect(pull.reviewComments).toHaveLength(0);
    expect(pull.reviews[0].body).toContain('**Outside the diff**\n\n1. the finding');
  });
});

describe('refusals', () => {
  test('a review for a head that moved is refused and nothing is posted', async () => {
    const { repo, number, head } = await repoWithPullRequest();
    github.commit(repo, 'feature', { 'src/c.ts': 'export const c = 3;\n' });
    const result = await activities.postReview({
      repo,
      number,
      commitSha: head,
      event: 'APPROVE',
      effectKey: 'unit:x/review/2',
      body: 'ok',
    });
    expect(result).toMatchObject({ status: 'refused', code: 'head_moved' });
    expect(github.state.countWrites('review.create', repo)).toBe(0);
  });

  test('a read-scoped identity cannot comment: a clear refusal, no write', async () => {
    const { repo, number } = await repoWithPullRequest();
    const result = await activities.postComment({ repo, number, identity: 'read', effectKey: 'run:r/comment/1', body: 'hi' });
    expect(result).toMatchObject({ status: 'refused', code: 'forbidden' });
    expect(result.reason).toMatch(/'read' identity.*403/);
    expect(github.state.countWrites('comment.create', repo)).toBe(0);
  });

  test('a rate-limited write is refused with the wait, nothing written', async () => {
    const { repo, number } = await repoWithPullRequest();
    github.faults.rateLimit({ method: 'POST', path: /\/comments$/ }, 1, 30);
    const result = await activities.postComment({ repo, number, effectKey: 'run:t/comment/rl', body: 'hi' });
    expect(result).toMatchObject({ status: 'refused', code: 'rate_limited' });
    expect(result.retryAfterMs).toBeGreaterThan(20_000);
  });
});
