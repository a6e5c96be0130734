import { planAsk } from './plan-message';

describe('plan messages', () => {
  it('reads `plan` and its YAML, fenced or not, with a repository on the first line', () => {
    const yaml = 'name: notes\nunits:\n  - key: api\n    request: Add the API';
    expect(planAsk(`plan\n${yaml}`)).toEqual({ yaml });
    expect(planAsk(`Plan in acme/app:\n\`\`\`yaml\n${yaml}\n\`\`\``)).toEqual({ yaml, repo: 'acme/app' });
  });

  it('leaves every other message alone', () => {
    expect(planAsk('plan the migration to v2')).toBeUndefined();
    expect(planAsk('plan\nname: notes')).toBeUndefined();
    expect(planAsk('please plan\nunits: []')).toBeUndefined();
  });
});
