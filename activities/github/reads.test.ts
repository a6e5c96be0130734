import { generateKeyPairSync } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { startLocalGitHub, type LocalGitHub } from '../../emulators/local-github';
import { type LocalGitHubApp } from '../../emulators/local-github/app-tokens';
import { createGitHubIdentities, type GitHubIdentities } from './identity';
import { createGitHubActivities } from './index';
import { localGitHubWithIdentities } from './test-support';

let github: LocalGitHub;
let identities: GitHubIdentities;
let activities: ReturnType<typeof createGitHubActivities>;

beforeAll(async () => {
  ({ github, identities } = await localGitHubWithIdentities());
  activities = createGitHubActivities({ identities });
  github.createRepo('acme', 'reads', {
    'README.md': '# Reads\n',
    'src/index.ts': 'export function parseDirectives() {}\n',
    'src/lib/util.ts': 'export {};\n',
  });
});
afterAll(async () => {
  await github.close();
});

test('tree, file and code search read the real repository', async () => {
  const tree = await activities.githubTree({ repo: 'acme/reads', recursive: true });
  expect(tree.entries.map((e) => e.path)).toEqual(expect.arrayContaining(['README.md', 'src/index.ts', 'src/lib/util.ts']));
  const folder = await activities.githubTree({ repo: 'acme/reads', path: 'src' });
  expect(folder.entries.map((e) => e.path).sort()).toEqual(['index.ts', 'lib']);
  const file = await activities.githubFile({ repo: 'acme/reads', path: 'README.md' });
  expect(file).toMatchObject({ content: '# Reads\n', encoding: 'utf8' });
  const hits = await activities.githubSearchCode({ query: 'parseDirectives', repo: 'acme/reads' });
  expect(hits).toEqual([{ repo: 'acme/reads', path: 'src/index.ts', fragments: ['export function parseDirectives() {}'] }]);
});

test('a pull request reads with its head SHA, files, checks and statuses', async () => {
  const head = github.commit('acme/reads', 'feature', { 'src/new.ts': 'export const x = 1;\n' });
  const opened = await activities.openOrUpdatePullRequest({
    repo: 'acme/reads',
    head: 'feature',
    base: 'main',
    title: 'New',
    body: 'b',
    effectKey: 'k/open/1',
  });
  const pr = await activities.githubPullGet({ repo: 'acme/reads', number: opened.number! });
  expect(pr).toMatchObject({ headSha: head, headRef: 'feature', baseRef: 'main', state: 'open' });
  expect(pr.files).toEqual([expect.objectContaining({ path: 'src/new.ts', status: 'added', additions: 1 })]);
  github.setCheckRun('acme/reads', head, { name: 'ci', status: 'completed', conclusion: 'success' });
  github.setStatus('acme/reads', head, { context: 'lint', state: 'pending' });
  expect(await activities.githubCommitChecks({ repo: 'acme/reads', ref: head })).toMatchObject({ sha: head, overall: 'pending' });
  github.setStatus('acme/reads', head, { context: 'lint', state: 'failure' });
  expect((await activities.githubCommitChecks({ repo: 'acme/reads', ref: head })).overall).toBe('failure');
});

test('issue lists follow pagination and leave pull requests out', async () => {
  const repo = github.createRepo('acme', 'many-issues', { 'a.txt': 'a\n' });
  for (let n = 1; n <= 130; n += 1) {
    repo.issues.set(n, {
      number: n,
      title: `Issue ${n}`,
      body: '',
      state: 'open',
      labels: n % 2 ? ['bug'] : [],
      assignees: [],
      user: 'alice',
      createdAt: '',
      updatedAt: '',
      comments: [],
      reviews: [],
      reviewComments: [],
    });
  }
  repo.nextNumber = 131;
  const all = await activities.githubIssueList({ repo: 'acme/many-issues', maxResults: 100 });
  expect(all).toHaveLength(100);
  expect(all[0].number).toBe(130);
  const bugs = await activities.githubIssueList({ repo: 'acme/many-issues', labels: ['bug'], maxResults: 100 });
  expect(bugs).toHaveLength(65);
});

test('a rate-limited read is a retryable failure that waits until the reset', async () => {
  github.faults.rateLimit({ method: 'GET', path: '/contents/' }, 1, 90);
  const failure = await activities.githubFile({ repo: 'acme/reads', path: 'README.md' }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure).toMatchObject({ type: 'github_rate_limited', nonRetryable: false });
  const delay = Number((failure as ApplicationFailure).nextRetryDelay);
  expect(delay).toBeGreaterThan(80_000);
  expect(delay).toBeLessThanOrEqual(92_000);
});

describe('vetRepository', () => {
  const requestsFor = (path: string) => github.state.requests.filter((r) => r.path === path).length;

  test('a visible repository passes with one GET', async () => {
    const before = requestsFor('/repos/acme/reads');
    expect(await activities.vetRepository({ repo: 'acme/reads' })).toMatchObject({ ok: true, defaultBranch: 'main' });
    expect(requestsFor('/repos/acme/reads') - before).toBe(1);
  });

  test('a repository the credential cannot see is repo_not_visible', async () => {
    expect(await activities.vetRepository({ repo: 'acme/secret' })).toMatchObject({ ok: false, code: 'repo_not_visible' });
    expect(requestsFor('/repos/acme/secret')).toBe(1);
  });

  test('GitHub silence (5xx, then a timeout) is repo_unverified, each after exactly one request', async () => {
    github.faults.serverErrors({ path: '/repos/acme/reads' }, 1, 503);
    const before = requestsFor('/repos/acme/reads');
    expect(await activities.vetRepository({ repo: 'acme/reads' })).toMatchObject({ ok: false, code: 'repo_unverified' });
    expect(requestsFor('/repos/acme/reads') - before).toBe(1);
    const impatient = createGitHubActivities({
      identities: createGitHubIdentities({
        apiUrl: github.apiUrl,
        gitUrl: github.gitUrl,
        tokens: { read: 'ghp_read_token_for_tests' },
        requestTimeoutMs: 200,
      }),
    });
    github.faults.slow({ path: '/repos/acme/reads' }, 1_000, 1);
    expect(await impatient.vetRepository({ repo: 'acme/reads' })).toMatchObject({ ok: false, code: 'repo_unverified' });
    expect(await activities.vetRepository({ repo: 'acme/reads' })).toMatchObject({ ok: true });
  });

  test('no credential for the scope is repo_unverified without a request (fail closed)', async () => {
    const before = github.state.requests.length;
    const readOnly = createGitHubActivities({
      identities: createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl, tokens: { read: 'ghp_read_token_for_tests' } }),
    });
    expect(await readOnly.vetRepository({ repo: 'acme/reads', identity: 'write' })).toEqual({
      ok: false,
      repo: 'acme/reads',
      code: 'repo_unverified',
      reason: "GitHub could not be asked about acme/reads: no credential is configured for the 'write' identity",
    });
    expect(github.state.requests.length).toBe(before);
  });
});

describe('GitHub App identity', () => {
  test('mints a token per scope with narrowed permissions and reuses it until near expiry', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const app: LocalGitHubApp = {
      appId: '4242',
      installationId: 77,
      publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    };
    const local = await startLocalGitHub({ tokens: { read: [], write: [] }, app });
    try {
      local.createRepo('acme', 'app-repo', { 'a.txt': 'a\n' });
      let clock = Date.now();
      const appIdentities = createGitHubIdentities({
        apiUrl: local.apiUrl,
        gitUrl: local.gitUrl,
        app: { appId: '4242', installationId: 77, privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
        now: () => clock,
      });
      const appActivities = createGitHubActivities({ identities: appIdentities });
      expect(await appActivities.githubRepos({})).toEqual([expect.objectContaining({ fullName: 'acme/app-repo' })]);
      await appActivities.vetRepository({ repo: 'acme/app-repo' });
      expect(app.mints).toEqual([{ scope: 'read', permissions: expect.objectContaining({ contents: 'read', pull_requests: 'read' }) }]);
      // An issue a person opened, for the read identity to try to comment on.
      const seeded = local.state.repo('acme', 'app-repo')!;
      const at = new Date().toISOString();
      seeded.issues.set(1, {
        number: 1,
        title: 'x',
        body: '',
        state: 'open',
        labels: [],
        assignees: [],
        user: 'ana',
        createdAt: at,
        updatedAt: at,
        comments: [],
        reviews: [],
        reviewComments: [],
      });
      seeded.nextNumber = 2;
      const refused = await appActivities.postComment({
        repo: 'acme/app-repo',
        number: 1,
        identity: 'read',
        body: 'x',
        effectKey: 'k/c/1',
      });
      expect(refused).toMatchObject({ status: 'refused', code: 'forbidden' });
      clock += 58 * 60_000;
      await appActivities.vetRepository({ repo: 'acme/app-repo' });
      expect(app.mints).toHaveLength(2);
      expect(await appIdentities.tokenFor('none')).toBeUndefined();
    } finally {
      await local.close();
    }
  });
});
