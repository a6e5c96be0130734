import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  GITHUB_WEBHOOK_EVENTS,
  isWebhookEvent,
  malformedGitHubPayload,
  repositoryEvent,
  routeGitHubEvent,
  stopCommand,
} from './github-event-routing';
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

describe('repository events', () => {
  const pull = (action: string, extra: Record<string, unknown> = {}, pr: Record<string, unknown> = {}) => ({
    action,
    number: 5,
    pull_request: { number: 5, state: 'open', draft: false, head: { sha: 'h1' }, user: { login: 'ana' }, ...pr },
    sender: { login: 'ana' },
    repository,
    ...extra,
  });
  const issue = (action: string, extra: Record<string, unknown> = {}) => ({
    action,
    issue: { number: 8, title: 'Fix the total', body: 'It is off.' },
    sender: { login: 'ana' },
    repository,
    ...extra,
  });

  test('a pull request opened (not a draft), ready, pushed to, or with a review asked of the bot is a review trigger', () => {
    expect(repositoryEvent('pull_request', pull('opened'), options)).toEqual({
      kind: 'review',
      repo: 'acme/app',
      number: 5,
      trigger: 'opened',
      headSha: 'h1',
      actor: 'ana',
      author: 'ana',
      deliveryId: 'd-1',
    });
    expect(repositoryEvent('pull_request', pull('opened', {}, { draft: true }), options)).toBeUndefined();
    expect(repositoryEvent('pull_request', pull('ready_for_review'), options)).toMatchObject({ trigger: 'ready_for_review' });
    expect(repositoryEvent('pull_request', pull('synchronize'), options)).toMatchObject({ trigger: 'push' });
    expect(
      repositoryEvent('pull_request', pull('review_requested', { requested_reviewer: { login: 'switchboard[bot]' } }), options),
    ).toMatchObject({ trigger: 'review_requested' });
    expect(repositoryEvent('pull_request', pull('review_requested', { requested_reviewer: { login: 'bob' } }), options)).toBeUndefined();
    expect(repositoryEvent('pull_request', pull('synchronize', { sender: { login: 'switchboard[bot]' } }), options)).toBeUndefined();
    expect(repositoryEvent('pull_request', pull('labeled'), options)).toBeUndefined();
  });

  test('an issue assigned to the bot or labelled starts its unit; unassigned, unlabelled or closed stops it', () => {
    expect(repositoryEvent('issues', issue('assigned', { assignee: { login: 'switchboard' } }), options)).toMatchObject({
      kind: 'issue',
      number: 8,
      action: 'start',
      how: 'assigned',
      title: 'Fix the total',
      body: 'It is off.',
      actor: 'ana',
    });
    expect(repositoryEvent('issues', issue('assigned', { assignee: { login: 'bob' } }), options)).toBeUndefined();
    expect(repositoryEvent('issues', issue('unassigned', { assignee: { login: 'Switchboard' } }), options)).toMatchObject({
      action: 'stop',
      how: 'assigned',
    });
    expect(repositoryEvent('issues', issue('labeled', { label: { name: 'switchboard' } }), options)).toMatchObject({
      action: 'start',
      how: 'labeled',
      label: 'switchboard',
    });
    expect(repositoryEvent('issues', issue('unlabeled', { label: { name: 'bug' } }), options)).toMatchObject({
      action: 'stop',
      label: 'bug',
    });
    const closed = (reason: string) => issue('closed', { issue: { number: 8, title: 'Fix the total', body: '', state_reason: reason } });
    expect(repositoryEvent('issues', closed('not_planned'), options)).toMatchObject({ action: 'stop', how: 'closed', actor: 'ana' });
    // Closed as completed is also a merged `Fixes #n`: the unit settles on its PR's events instead.
    expect(repositoryEvent('issues', closed('completed'), options)).toBeUndefined();
    expect(repositoryEvent('issues', issue('opened'), options)).toBeUndefined();
  });

  test('a mention whose words are `stop` is a stop command, with its reason', () => {
    expect(stopCommand('stop')).toBe('');
    expect(stopCommand('Stop: superseded by #9')).toBe('superseded by #9');
    expect(stopCommand('stopping is hard, explain')).toBeUndefined();
    expect(stopCommand('please stop')).toBeUndefined();
    const routed = routeGitHubEvent('issue_comment', comment('@switchboard stop'), options);
    expect(routed?.args[0]).toMatchObject({ text: 'stop', addressedToRun: true });
  });
});

describe('the webhook events Switchboard acts on', () => {
  test('are exactly those the routing handles: the App subscribes to this list alone', () => {
    const source = readFileSync(join(__dirname, 'github-event-routing.ts'), 'utf8');
    const routing = source.slice(source.indexOf('export function routeGitHubEvent'));
    const handled = new Set([
      ...[...routing.matchAll(/case '([a-z_]+)':/g)].map((match) => match[1]),
      ...[...routing.matchAll(/name === '([a-z_]+)'/g)].map((match) => match[1]),
    ]);
    expect([...handled].sort()).toEqual(GITHUB_WEBHOOK_EVENTS.map((entry) => entry.event).sort());
    expect(isWebhookEvent('issue_comment')).toBe(true);
    expect(isWebhookEvent('push')).toBe(false);
  });
});
