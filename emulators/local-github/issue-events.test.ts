import { startLocalGitHub, type LocalGitHub } from '.';
import { diffLines, lineAtPosition, suggestionOf } from './diff-positions';

/**
 * What issue 25 needed the local GitHub to copy from GitHub: assignment and label events,
 * review requests and ready-for-review, review comments anchored by line and side (or legacy
 * position) and refused off the diff, suggestion blocks, and a branch's head.
 */
/** Twenty lines: a change at line 2 and one added at the end make two hunks with lines 6-17 between them. */
const LINES = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);

describe('the local GitHub’s issue events and line comments', () => {
  let github: LocalGitHub;
  const events: Array<{ event: string; payload: Record<string, any> }> = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  const call = (path: string, method: string, body?: unknown, token = 'ana-token') =>
    fetch(`${github.apiUrl}${path}`, {
      method,
      headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const json = async (response: Promise<Response>): Promise<any> => (await response).json();

  beforeAll(async () => {
    github = await startLocalGitHub({ tokens: { read: ['r'], write: ['ana-token', 'bot-token'] }, logins: { 'ana-token': 'ana' } });
    github.webhooks.subscribe((event, payload) => events.push({ event, payload: payload as Record<string, unknown> }));
    github.createRepo('acme', 'lines', { 'src/a.js': LINES.join('\n') + '\n' });
  });
  afterAll(async () => {
    await github.close();
  });

  it('assigns, unassigns, labels and unlabels an issue, raising one event each with who did it', async () => {
    const created = await json(call('/repos/acme/lines/issues', 'POST', { title: 'Fix it', body: 'Please.' }));
    events.length = 0;
    expect((await call(`/repos/acme/lines/issues/${created.number}/assignees`, 'POST', { assignees: ['switchboard'] })).status).toBe(201);
    expect((await call(`/repos/acme/lines/issues/${created.number}/labels`, 'POST', { labels: ['switchboard', 'bug'] })).status).toBe(200);
    expect((await call(`/repos/acme/lines/issues/${created.number}/labels/bug`, 'DELETE')).status).toBe(200);
    expect((await call(`/repos/acme/lines/issues/${created.number}/assignees`, 'DELETE', { assignees: ['switchboard'] })).status).toBe(200);
    expect(
      events.map(({ event, payload }) => [event, payload.action, payload.assignee?.login ?? payload.label?.name, payload.sender.login]),
    ).toEqual([
      ['issues', 'assigned', 'switchboard', 'ana'],
      ['issues', 'labeled', 'switchboard', 'ana'],
      ['issues', 'labeled', 'bug', 'ana'],
      ['issues', 'unlabeled', 'bug', 'ana'],
      ['issues', 'unassigned', 'switchboard', 'ana'],
    ]);
    const issue = await json(call(`/repos/acme/lines/issues/${created.number}`, 'GET'));
    expect(issue).toMatchObject({ assignees: [], labels: [{ name: 'switchboard' }] });
  });

  it('anchors review comments on the diff by line and side or by position, keeps suggestions, and refuses a line off the diff', async () => {
    github.commit('acme/lines', 'change', { 'src/a.js': [...LINES.slice(0, 1), 'LINE 2', ...LINES.slice(2), 'line 21'].join('\n') + '\n' });
    const pr = await json(call('/repos/acme/lines/pulls', 'POST', { head: 'change', base: 'main', title: 'Change' }));
    const head = pr.head.sha;
    const review = (comments: unknown[]) =>
      call(`/repos/acme/lines/pulls/${pr.number}/reviews`, 'POST', { commit_id: head, event: 'COMMENT', body: 'r', comments }, 'bot-token');
    const off = await review([{ path: 'src/a.js', line: 10, side: 'RIGHT', body: 'far away' }]);
    expect(off.status).toBe(422);
    expect(JSON.stringify(await off.json())).toContain('must be part of the diff');
    expect((await review([{ path: 'nope.js', line: 2, body: 'x' }])).status).toBe(422);
    expect((await review([{ path: 'src/a.js', start_line: 2, line: 21, body: 'across hunks' }])).status).toBe(422);
    expect(github.state.repo('acme', 'lines')!.issues.get(pr.number)!.reviews).toHaveLength(0);

    const ok = await review([
      { path: 'src/a.js', line: 2, side: 'RIGHT', body: 'Shouting.\n\n```suggestion\nline 2\n```\n' },
      { path: 'src/a.js', line: 2, side: 'LEFT', body: 'The old line.' },
      { path: 'src/a.js', start_line: 20, line: 21, side: 'RIGHT', body: 'Two lines.' },
      { path: 'src/a.js', position: 1, body: 'By position.' },
    ]);
    expect(ok.status).toBe(200);
    const listed = await json(call(`/repos/acme/lines/pulls/${pr.number}/comments`, 'GET'));
    expect(listed.map((c: Record<string, unknown>) => [c.line, c.side, c.start_line, c.body])).toEqual([
      [2, 'RIGHT', null, expect.stringContaining('```suggestion')],
      [2, 'LEFT', null, 'The old line.'],
      [21, 'RIGHT', 20, 'Two lines.'],
      [1, 'RIGHT', null, 'By position.'],
    ]);
    expect(github.state.repo('acme', 'lines')!.issues.get(pr.number)!.reviewComments[0].suggestion).toBe('line 2');
    expect(events.filter((e) => e.event === 'pull_request_review_comment').map((e) => e.payload.comment.side)).toEqual([
      'RIGHT',
      'LEFT',
      'RIGHT',
      'RIGHT',
    ]);
  });

  it('raises review_requested and ready_for_review, and answers a branch’s head', async () => {
    github.commit('acme/lines', 'draft', { 'b.txt': 'b\n' });
    const pr = await json(call('/repos/acme/lines/pulls', 'POST', { head: 'draft', base: 'main', title: 'Draft', draft: true }));
    events.length = 0;
    await call(`/repos/acme/lines/pulls/${pr.number}/requested_reviewers`, 'POST', { reviewers: ['switchboard'] });
    github.readyForReview('acme/lines', pr.number, 'ana');
    expect(events.map((e) => [e.payload.action, e.payload.requested_reviewer?.login, e.payload.pull_request.draft])).toEqual([
      ['review_requested', 'switchboard', true],
      ['ready_for_review', undefined, false],
    ]);
    const branch = await json(call('/repos/acme/lines/branches/draft', 'GET', undefined, 'r'));
    expect(branch.commit.sha).toBe(pr.head.sha);
    expect((await call('/repos/acme/lines/branches/nope', 'GET', undefined, 'r')).status).toBe(404);
  });

  it('closes the issues a merged pull request’s body fixes, and only those, with an event each', async () => {
    const open = async (title: string) => (await json(call('/repos/acme/lines/issues', 'POST', { title, body: '' }))).number as number;
    const [fixed, resolved, mentioned] = [await open('One'), await open('Two'), await open('Three')];
    github.commit('acme/lines', 'fixes', { 'c.txt': 'c\n' });
    const body = `Does the thing.\n\nFixes #${fixed}, resolves: #${resolved}; see #${mentioned} and other/repo#${fixed}.`;
    const pr = await json(call('/repos/acme/lines/pulls', 'POST', { head: 'fixes', base: 'main', title: 'Fixes', body }));
    events.length = 0;
    expect((await call(`/repos/acme/lines/pulls/${pr.number}/merge`, 'PUT', {})).status).toBe(200);
    const issueEvents = events.filter((e) => e.event === 'issues').map((e) => [e.payload.action, e.payload.issue.number]);
    expect(issueEvents).toEqual([
      ['closed', fixed],
      ['closed', resolved],
    ]);
    const states = await Promise.all(
      [fixed, resolved, mentioned].map(async (n) => (await json(call(`/repos/acme/lines/issues/${n}`, 'GET'))).state),
    );
    expect(states).toEqual(['closed', 'closed', 'open']);
    expect(events.find((e) => e.event === 'issues')!.payload.issue.state_reason).toBe('completed');
  });
});

describe('reading a unified diff', () => {
  const patch = ['@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c', '@@ -10,2 +10,3 @@', ' j', '+k', ' l'].join('\n');

  it('numbers each side and counts positions through later hunk headers', () => {
    expect(diffLines(patch).filter((l) => l.side === 'RIGHT')).toEqual([
      { position: 1, side: 'RIGHT', line: 1, hunk: 1 },
      { position: 3, side: 'RIGHT', line: 2, hunk: 1 },
      { position: 4, side: 'RIGHT', line: 3, hunk: 1 },
      { position: 6, side: 'RIGHT', line: 10, hunk: 2 },
      { position: 7, side: 'RIGHT', line: 11, hunk: 2 },
      { position: 8, side: 'RIGHT', line: 12, hunk: 2 },
    ]);
    expect(lineAtPosition(patch, 2)).toEqual({ side: 'LEFT', line: 2 });
    expect(lineAtPosition(patch, 5)).toBeUndefined();
    expect(suggestionOf('x\n```suggestion\nfixed();\n```')).toBe('fixed();');
  });
});
