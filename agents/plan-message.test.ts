import { planAsk } from './plan-message';

describe('plan messages', () => {
  it('reads `plan` and its YAML, fenced or not, with a repository on the first line', () => {
    const yaml = 'name: notes\nunits:\n  - key: api\n    request: Add the API';
    expect(planAsk(`plan\n${yaml}`)).toEqual({ yaml });
    expect(planAsk(`Plan in acme/app:\n\`\`\`yaml\n${yaml}\n\`\`\``)).toEqual({ yaml, repo: 'acme/app' });
    // The API's and MCP's `repo` field arrives as its directive in front.
    expect(planAsk(`in acme/app: plan\n${yaml}`)).toEqual({ yaml, repo: 'acme/app' });
  });

  it('reads `plan confirm` as the confirmation of a drafted plan', () => {
    expect(planAsk('plan confirm')).toEqual({ confirm: true });
    expect(planAsk('Plan start!')).toEqual({ confirm: true });
    expect(planAsk('plan confirm the second one')).toBeUndefined();
  });

  it('leaves every other message alone', () => {
    expect(planAsk('plan the migration to v2')).toBeUndefined();
    expect(planAsk('plan\nname: notes')).toBeUndefined();
    expect(planAsk('please plan\nunits: []')).toBeUndefined();
  });
});
