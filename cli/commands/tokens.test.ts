import { parse } from 'yaml';
import { TokenTable } from '../../infra/api-tokens';
import { ConfigSchema } from '../../infra/config';
import { createTokenText } from './tokens';

describe('switchboard tokens create', () => {
  it('prints the token once and a config entry that holds only its hash and verifies it', () => {
    const { token, text } = createTokenText({ user: 'U123', agents: 'general, research', selfServe: true, id: 'desk' });
    expect(text.split('\n')[0]).toBe(`token: ${token}`);
    expect(text.match(new RegExp(token, 'g'))).toHaveLength(1);
    const yaml = text.slice(text.indexOf('api:'), text.indexOf('\n\nor, in the environment'));
    const config = ConfigSchema.parse(parse(yaml));
    expect(config.api.tokens).toEqual([
      { id: 'desk', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), user: 'U123', selfServe: true, agents: ['general', 'research'] },
    ]);
    expect(new TokenTable(config.api.tokens).verify(token, 'http')).toMatchObject({
      userId: 'U123',
      selfServe: true,
      agents: ['general', 'research'],
    });
    const json = /SWITCHBOARD_API_TOKENS='(.*)'/.exec(text)![1];
    expect(ConfigSchema.parse({ api: { tokens: JSON.parse(json) as unknown } }).api.tokens).toEqual(config.api.tokens);
  });

  it('names a default id after the user', () => {
    expect(createTokenText({ user: 'ada@example.com' }).text).toMatch(/ {4}- id: ada-example\.com-[0-9a-f]{6}\n/);
  });
});
