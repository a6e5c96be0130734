import { visibilityQuery } from './visibility';

describe('visibilityQuery', () => {
  it('joins exact matches, skips absent filters and keeps text from breaking out of its quotes', () => {
    expect(visibilityQuery({ SwitchboardKind: 'unit', Repo: 'acme/app', Requester: undefined, PullRequest: 7.9 })).toBe(
      'SwitchboardKind = "unit" AND Repo = "acme/app" AND PullRequest = 7',
    );
    expect(visibilityQuery({ Agent: 'x" OR WorkflowId = "y\\' })).toBe('Agent = "x OR WorkflowId = y"');
  });
});
