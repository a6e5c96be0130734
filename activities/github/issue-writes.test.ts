import { type LocalGitHub } from '../../emulators/local-github';
import { createGitHubActivities } from './index';
import { localGitHubWithIdentities } from './test-support';

let github: LocalGitHub;
let activities: ReturnType<typeof createGitHubActivities>;
let counter = 0;

beforeAll(async () => {
  const started = await localGitHubWithIdentities();
  github = started.github;
  activities = createGitHubActivities({ identities: started.identities });
});
afterAll(async () => {
  await github.close();
});

function freshRepo(): string {
  const name = `issues-${++counter}`;
  github.createRepo('acme', name, { 'README.md': '# hello\n' });
  return `acme/${name}`;
}

describe('createIssue (at-most-once)', () => {
  test('opens an issue whose body carries the effect marker', async () => {
    const repo = freshRepo();
    const result = await activities.createIssue({
      repo,
      effectKey: 'run:t:1/github_issue_create/1.0',
      title: 'Flaky test',
      body: 'It fails one run in ten.',
      labels: ['bug'],
    });
    expect(result).toMatchObject({ status: 'confirmed', number: 1 });
    const issue = await activities.githubIssueGet({ repo, number: 1 });
    expect(issue).toMatchObject({ title: 'Flaky test', labels: ['bug'], isPullRequest: false });
    expect(issue.body).toContain('<!-- switchboard-effect: run:t:1/github_issue_create/1.0 -->');
  });

  test('a dropped response: the retry finds the issue by its marker, exactly one exists', async () => {
    const repo = freshRepo();
    github.faults.dropResponse({ method: 'POST', path: /\/issues$/ });
    const input = { repo, effectKey: 'run:t:2/github_issue_create/1.0', title: 'Once', body: 'Only once.' };
    await expect(activities.createIssue(input)).rejects.toThrow();
    expect(github.state.countWrites('issue.create', repo)).toBe(1);
    const retry = await activities.createIssue({ ...input, attempt: 2 });
    expect(retry).toMatchObject({ status: 'confirmed', number: 1 });
    expect(github.state.countWrites('issue.create', repo)).toBe(1);
  });

  test('a reset repeats the write as a first attempt: it finds the issue by its marker, exactly one exists', async () => {
    const repo = freshRepo();
    const input = { repo, effectKey: 'run:t:reset/github_issue_create/1.0', title: 'Once', body: 'Only once.' };
    const first = await activities.createIssue({ ...input, attempt: 1 });
    expect(await activities.createIssue({ ...input, attempt: 1 })).toEqual(first);
    expect(github.state.countWrites('issue.create', repo)).toBe(1);
  });

  test('a first attempt that left no trace is unconfirmed and not sent again', async () => {
    const repo = freshRepo();
    github.faults.serverErrors({ method: 'POST', path: /\/issues$/ }, 1, 502);
    const input = { repo, effectKey: 'run:t:3/github_issue_create/1.0', title: 'Lost', body: 'Lost.' };
    await expect(activities.createIssue(input)).rejects.toThrow();
    const retry = await activities.createIssue({ ...input, attempt: 2 });
    expect(retry).toMatchObject({ status: 'unconfirmed', reason: expect.stringMatching(/not sent again/) });
    expect(github.state.countWrites('issue.create', repo)).toBe(0);
  });

  test('a read-scoped identity is refused as forbidden, nothing written', async () => {
    const repo = freshRepo();
    const result = await activities.createIssue({
      repo,
      identity: 'read',
      effectKey: 'run:r/github_issue_create/1.0',
      title: 'No',
      body: 'No.',
    });
    expect(result).toMatchObject({ status: 'refused', code: 'forbidden' });
    expect(github.state.countWrites('issue.create', repo)).toBe(0);
  });
});

describe('updateIssue (repeatable)', () => {
  test('changes only the fields given; a retry after a dropped response leaves the same issue', async () => {
    const repo = freshRepo();
    const created = await activities.createIssue({
      repo,
      effectKey: 'run:u/github_issue_create/1.0',
      title: 'Old title',
      body: 'Body.',
      labels: ['bug'],
    });
    github.faults.dropResponse({ method: 'PATCH', path: /\/issues\/\d+$/ });
    const input = {
      repo,
      number: created.number!,
      effectKey: 'run:u/github_issue_update/2.0',
      title: 'New title',
      state: 'closed' as const,
      labels: ['bug', 'fixed'],
    };
    await expect(activities.updateIssue(input)).rejects.toThrow();
    expect(await activities.updateIssue({ ...input, attempt: 2 })).toMatchObject({ status: 'confirmed', number: created.number });
    const issue = await activities.githubIssueGet({ repo, number: created.number! });
    expect(issue).toMatchObject({ title: 'New title', state: 'closed', labels: ['bug', 'fixed'] });
    expect(issue.body).toContain('Body.');
    expect(github.state.countWrites('issue.create', repo)).toBe(1);
  });

  test('a missing issue is refused as not_found', async () => {
    const repo = freshRepo();
    expect(await activities.updateIssue({ repo, number: 99, effectKey: 'run:u/github_issue_update/9.0', state: 'closed' })).toMatchObject({
      status: 'refused',
      code: 'not_found',
    });
  });
});
