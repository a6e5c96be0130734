import { routeGitHubEvent } from './github-event-routing';

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
    expect(routed).toMatchObject({ workflowId: 'thread:gh:acme/app#4', workflowType: 'threadWorkflow', signal: 'message' });
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
      workflowType: 'shipUnitWorkflow',
      signal: 'prEvent',
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
      signal: 'checks',
      args: [{ conclusion: 'failure', headSha: 'abc', source: 'check_suite' }],
    });
    expect(
      routeGitHubEvent('check_suite', { action: 'completed', check_suite: { pull_requests: [] }, repository }, options),
    ).toBeUndefined();
  });
});
