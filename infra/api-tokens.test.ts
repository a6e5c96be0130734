import { bearerToken, hashToken, newToken, TOKEN_PREFIX, TokenTable } from './api-tokens';

describe('API tokens', () => {
  it('are long random strings, kept only as their SHA-256', () => {
    const [one, two] = [newToken(), newToken()];
    expect(one).toMatch(/^sbt_[A-Za-z0-9_-]{43}$/);
    expect(one).not.toBe(two);
    expect(hashToken(one)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('verify a presented token against the hashes and say whom it speaks for', () => {
    const token = newToken();
    const table = new TokenTable([{ id: 'ci', sha256: hashToken(token), user: 'U1', selfServe: true, agents: ['general'] }]);
    expect(table.verify(token, 'mcp')).toEqual({ tokenId: 'ci', userId: 'U1', surface: 'mcp', selfServe: true, agents: ['general'] });
    expect(table.verify(`${token}x`, 'http')).toBeUndefined();
    expect(table.verify(hashToken(token), 'http')).toBeUndefined(); // the stored hash is not a token
    expect(table.verify(token.slice(TOKEN_PREFIX.length), 'http')).toBeUndefined();
    const admin = newToken();
    const admins = new TokenTable([{ id: 'ops', sha256: hashToken(admin), user: 'U2', selfServe: false, admin: true }]);
    expect(admins.verify(admin, 'http')).toEqual({ tokenId: 'ops', userId: 'U2', surface: 'http', selfServe: false, admin: true });
  });

  it('read the bearer token from the Authorization header only in its standard form', () => {
    expect(bearerToken('Bearer sbt_abc')).toBe('sbt_abc');
    expect(bearerToken('bearer   sbt_abc ')).toBe('sbt_abc');
    expect(bearerToken('Basic dXNlcjpwYXNz')).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
