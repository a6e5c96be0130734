import { builtinCatalog, getAgent, parseDirectives, resolveProfile } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import type { ReplyTarget } from '../contracts';
import { shipStart } from './ship-start';

const profileOf = (text: string) =>
  resolveProfile({
    agent: getAgent(builtinCatalog(), 'ship')!,
    config: defaultAgentsConfig(),
    directives: parseDirectives(text).directives,
  });
const message = { requester: { id: 'ada', surface: 'slack' as const }, channelId: 'C1' };
const pr: ReplyTarget = { kind: 'github', repo: 'acme/app', pullRequest: 7 };

describe('the ship unit a code-change request starts', () => {
  it("is the PR's own unit on its conversation, and a new unit that fixes the issue on a plain issue's", () => {
    const onPr = shipStart('add a test', profileOf('agent:ship add a test'), message, pr, 'thread:gh:acme/app#7');
    expect(onPr).toMatchObject({ input: { unitId: 'unit:acme/app#7', pullRequest: 7, repo: 'acme/app' } });
    const onIssue = shipStart('fix the crash', profileOf('fix the crash'), message, { ...pr, issue: true }, 'thread:gh:acme/app#7');
    expect(onIssue).toMatchObject({ input: { issue: 7, repo: 'acme/app', replyTarget: { issue: true } } });
    expect('input' in onIssue && onIssue.input.unitId).toMatch(/^unit:acme\/app:fix-the-crash/);
    expect('input' in onIssue && onIssue.input.pullRequest).toBeUndefined();
  });

  it("carries the request's budget, effort and model directives and its channel, which narrow the unit's runs", () => {
    const text = 'agent:ship budget:30 effort:low model:scripted:kit/a.yaml in acme/app: add a changelog';
    const started = shipStart(
      'add a changelog',
      profileOf(text),
      message,
      { kind: 'slack', team: 'T', channel: 'C1', threadTs: '1.0' },
      't',
    );
    expect(started).toMatchObject({
      input: { repo: 'acme/app', budgetMinutes: 30, effort: 'low', model: 'scripted:kit/a.yaml', channelId: 'C1' },
    });
  });

  it('says which repository is missing', () => {
    expect(shipStart('add a changelog', profileOf('add a changelog'), message, { kind: 'api' }, 't')).toMatchObject({
      refused: { code: 'repo_missing' },
    });
  });
});
