import { malformedGitHubPayload, routeGitHubEvent } from './github-event-routing';
import { checksSignal, messageSignal, prEventSignal, shipUnitWorkflowType, threadWorkflowType } from '../workflows/contracts';

const repository = { full_name: 'acme/app' };
const options = { botLogin: 'switchboard', deliveryId: 'd-1' };
const comment = (body: string, login = 'alice') => ({
  action: 'created',
  issue: { number: 4 },
  comment: { id: 9, body, user: { login } },
  repository,
});

describe('routeGitHubEvent', () => {
  test('a comment mentioning the app goes to the PR thread as a message', () => {
    const routed = routeGitHubEvent('issue_comment', comment('@switchboard fix the test'), options);
    expect(routed).toMatchObject({ workflowId: 'thread:gh:acme/app#4', workflowType: threadWorkflowType, signal: messageSignal });
    expect(routed?.args[0]).toMatchObject({
      text: 'fix the test',
      messageId: 'github:d-1',
      requester: { id: 'github:alice', surface: 'github' },
      replyTarget: { kind: 'github', repo: 'acme/app', pullRequest: 4 },
    });
  });

  test('comments without a mention, with a longer login, or by the app itself are not routed', () => {
    expect(routeGitHubEvent('issue_comment', comment('looks good'), options)).toBeUndefined();
    expect(routeGitHubEvent('issue_comment', comment('@switchboarder hi'), options)).toBeUndefined();
    expect(routeGitHubEvent('issue_comment', comment('@switchboard hi', 'switchboard[bot]'), options)).toBeUndefined();
  });

  test('pull request events go to the unit; a closed-and-merged PR is `merged`', () => {
    const routed = routeGitHubEvent(
      'pull_request',
      { action: 'closed', number: 4, pull_request: { number: 4, merged: true, head: { sha: 'abc' } }, repository },
      options,
    );
    expect(routed).toMatchObject({
      workflowId: 'unit:acme/app#4',
      workflowType: shipUnitWorkflowType,
      signal: prEventSignal,
      args: [{ kind: 'merged', headSha: 'abc' }],
    });
    expect(routed?.startArgs).toBeUndefined();
    expect(
      routeGitHubEvent('pull_request', { action: 'labeled', number: 4, pull_request: { number: 4 }, repository }, options),
    ).toBeUndefined();
  });

  test('a completed check suite finds its PR in pull_requests[]', () => {
    const routed = routeGitHubEvent(
      'check_suite',
      { action: 'completed', check_suite: { head_sha: 'abc', conclusion: 'failure', pull_requests: [{ number: 12 }] }, repository },
      options,
    );
    expect(routed).toMatchObject({
      workflowId: 'unit:acme/app#12',
      signal: checksSignal,
      args: [{ conclusion: 'failure', headSha: 'abc', source: 'check_suite' }],
    });
    expect(
      routeGitHubEvent('check_suite', { action: 'completed', check_suite: { pull_requests: [] }, repository }, options),
    ).toBeUndefined();
  });
});

describe('malformedGitHubPayload', () => {
  const comment = (repo: unknown, number: unknown) => ({
    action: 'created',
    issue: { number },
    comment: { id: 1, body: '@switchboard hi', user: { login: 'alice' } },
    repository: { full_name: repo },
  });

  it('passes what GitHub sends', () => {
    expect(malformedGitHubPayload('issue_comment', comment('acme/app', 7))).toBeUndefined();
    expect(malformedGitHubPayload('ping', { zen: 'hi', hook_id: 1 })).toBeUndefined();
    const check = { action: 'completed', check_run: { pull_requests: [{ number: 3 }], check_suite: { pull_requests: [] } } };
    expect(malformedGitHubPayload('check_run', { ...check, repository: { full_name: 'acme/app' } })).toBeUndefined();
  });

  it.each([
    ['a 1,202-character full name', 'issue_comment', comment(`acme/${'x'.repeat(1197)}`, 7), /repository\.full_name/],
    ['a full name that is not owner/name', 'issue_comment', comment('acme/app#1', 7), /repository\.full_name/],
    ['a full name that is not text', 'issue_comment', comment(['acme/app'], 7), /repository\.full_name/],
    ['1e300', 'issue_comment', comment('acme/app', 1e300), /issue\.number/],
    ['2.5', 'issue_comment', comment('acme/app', 2.5), /issue\.number/],
    ['-1', 'issue_comment', comment('acme/app', -1), /issue\.number/],
    ['0', 'issue_comment', comment('acme/app', 0), /issue\.number/],
    ['a number as text', 'issue_comment', comment('acme/app', '7'), /issue\.number/],
    ['a PR number', 'pull_request', { action: 'opened', number: 2.5, pull_request: { number: 2.5 }, repository }, /^number/],
    [
      "a check's PR number",
      'check_suite',
      { action: 'completed', check_suite: { pull_requests: [{ number: 1e300 }] }, repository },
      /check_suite\.pull_requests\.0\.number/,
    ],
    [
      'a comment longer than GitHub allows',
      'issue_comment',
      { ...comment('acme/app', 7), comment: { body: 'x'.repeat(65_537) } },
      /comment\.body/,
    ],
    ['a payload that is not an object', 'issue_comment', [1, 2], /not a JSON object/],
  ])('refuses %s', (_what, event, payload, reason) => {
    expect(malformedGitHubPayload(event, payload)).toMatch(reason);
  });

  it('leaves nothing for routing to turn into an odd id', () => {
    expect(routeGitHubEvent('issue_comment', comment('acme/app', 1e300), options)).toBeUndefined();
    expect(routeGitHubEvent('issue_comment', comment(`acme/${'x'.repeat(1197)}`, 7), options)).toBeUndefined();
  });
});
