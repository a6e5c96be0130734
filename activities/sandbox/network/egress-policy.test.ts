import { blockedReason, hostAllowed, HOST_PATTERN } from './egress-policy';
import { egressAllowFor, resolveDestination } from './door-grant';
import { parseAuthority } from './door';
import { routeGitRequest } from './git-forward';

// A host with a public address of its own, as many cloud machines have.
const host = { addresses: new Set<string>(['140.82.112.2']), subnets: [{ cidr: '140.82.112.2/24', family: 'ipv4' as const }] };

describe('egress policy', () => {
  it.each([
    ['127.0.0.1', /loopback/],
    ['127.8.9.10', /loopback/],
    ['0.0.0.0', /unspecified/],
    ['10.0.0.5', /private/],
    ['172.20.1.1', /private/],
    ['192.168.1.1', /private/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['169.254.169.254', /cloud metadata/],
    ['169.254.1.1', /link-local/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /reserved/],
    ['::1', /loopback/],
    ['::', /unspecified/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::ffff:7f00:1', /loopback/],
    ['::ffff:169.254.169.254', /cloud metadata/],
    ['fd00::2', /private \(unique local\)/],
    ['fe80::1', /link-local/],
    ['64:ff9b::a9fe:a9fe', /cloud metadata/],
    ['203.0.113.10', /reserved \(not on the internet\)/],
    ['140.82.112.2', /an address of the worker's host/],
    ['::ffff:140.82.112.2', /an address of the worker's host/],
    ['140.82.112.77', /on a network of the worker's host \(140\.82\.112\.2\/24\)/],
    ['not-an-ip', /not an IP address/],
  ])('refuses %s', (address, reason) => {
    expect(blockedReason(address, host)).toMatch(reason);
  });

  it.each(['8.8.8.8', '140.82.113.3', '11.22.33.44', '2606:4700::1111'])('lets the public address %s through', (address) => {
    expect(blockedReason(address, host)).toBeUndefined();
  });

  it('matches names against *, exact names, *.suffix and IP literals', () => {
    expect(hostAllowed('anything.example', ['*'])).toBe(true);
    expect(hostAllowed('GitHub.com.', ['github.com'])).toBe(true);
    expect(hostAllowed('api.github.com', ['github.com'])).toBe(false);
    expect(hostAllowed('api.github.com', ['*.github.com'])).toBe(true);
    expect(hostAllowed('github.com', ['*.github.com'])).toBe(false);
    expect(hostAllowed('evilgithub.com', ['*.github.com'])).toBe(false);
    expect(hostAllowed('203.0.113.10', ['203.0.113.10'])).toBe(true);
    expect(['*', 'github.com', '*.npmjs.org', '203.0.113.10'].every((pattern) => HOST_PATTERN.test(pattern))).toBe(true);
    expect(['http://x', 'a b', '*.*', 'x/y', ''].some((pattern) => HOST_PATTERN.test(pattern))).toBe(false);
  });

  it('chooses the agent list, else the machine class list, else the default', () => {
    const settings = { allow: ['*'], machines: { 'repo-cold': ['github.com'] }, agents: { explore: ['registry.npmjs.org'] } };
    expect(egressAllowFor(settings, 'explore', 'repo-cold')).toEqual(['registry.npmjs.org']);
    expect(egressAllowFor(settings, 'coding', 'repo-cold')).toEqual(['github.com']);
    expect(egressAllowFor(settings, 'coding', 'repo-resident')).toEqual(['*']);
  });

  it('connects to the address it checked: a name resolving to a private address is refused, a mixed answer uses the public one', async () => {
    const grant = { network: true, allow: ['*'], identity: 'none' as const };
    const resolver = async (host: string) => (host === 'internal.example' ? ['10.0.0.8'] : ['10.0.0.9', '8.8.4.4']);
    expect(await resolveDestination(grant, 'internal.example', 443, resolver)).toEqual({
      refused: 'internal.example is not on the public internet: 10.0.0.8 is a private address',
    });
    expect(await resolveDestination(grant, 'mixed.example', 443, resolver)).toEqual({ address: '8.8.4.4' });
    expect(await resolveDestination(undefined, 'mixed.example', 443, resolver)).toMatchObject({ refused: expect.stringMatching(/shut/) });
    expect(await resolveDestination(grant, 'mixed.example', 0, resolver)).toMatchObject({
      refused: expect.stringMatching(/not a valid port/),
    });
  });

  it('parses CONNECT authorities', () => {
    expect(parseAuthority('github.com:443')).toEqual({ host: 'github.com', port: 443 });
    expect(parseAuthority('[::1]:22')).toEqual({ host: '::1', port: 22 });
    expect(parseAuthority('nohost')).toEqual({ host: 'nohost', port: NaN });
  });

  it('routes git smart-HTTP only, and scopes pushes to a write identity and its bound repository', () => {
    const write = { network: true, allow: ['*'], identity: 'write' as const, repo: 'Acme/App' };
    const url = (path: string) => new URL(path, 'http://door');
    expect(routeGitRequest(url('/git/acme/app.git/info/refs?service=git-receive-pack'), write)).toMatchObject({
      ok: true,
      upstreamPath: '/acme/app.git/info/refs?service=git-receive-pack',
    });
    expect(routeGitRequest(url('/git/acme/app/git-upload-pack'), { ...write, identity: 'read' }, 'POST')).toMatchObject({ ok: true });
    expect(routeGitRequest(url('/git/acme/app.git/git-receive-pack'), { ...write, identity: 'read' }, 'POST')).toMatchObject({ ok: false });
    expect(routeGitRequest(url('/git/acme/other.git/git-receive-pack'), write, 'POST')).toMatchObject({ ok: false });
    expect(routeGitRequest(url('/git/acme/app.git/objects/info/packs'), write)).toMatchObject({ ok: false });
    expect(routeGitRequest(url('/git/../../etc/passwd/info/refs?service=git-upload-pack'), write)).toMatchObject({ ok: false });
    expect(routeGitRequest(url('/git/acme/app.git/info/refs?service=git-upload-pack'), { ...write, network: false })).toMatchObject({
      ok: false,
    });
  });

  it("forwards exactly git's smart-HTTP requests: GET info/refs?service=…, POST to a service, nothing else", () => {
    const read = { network: true, allow: ['*'], identity: 'read' as const };
    const route = (path: string, method: string) => routeGitRequest(new URL(path, 'http://door'), read, method);
    expect(route('/git/acme/app.git/info/refs?service=git-upload-pack', 'GET')).toMatchObject({ ok: true });
    expect(route('/git/acme/app.git/git-upload-pack', 'POST')).toMatchObject({ ok: true, upstreamPath: '/acme/app.git/git-upload-pack' });
    for (const [path, method] of [
      ['/git/acme/app.git/info/refs?service=git-upload-pack', 'DELETE'],
      ['/git/acme/app.git/info/refs?service=git-upload-pack', 'POST'],
      ['/git/acme/app.git/git-upload-pack', 'GET'],
      ['/git/acme/app.git/git-upload-pack', 'PUT'],
      ['/git/acme/app.git/info/refs?service=git-upload-pack&x=1', 'GET'],
      ['/git/acme/app.git/info/refs?x=1&service=git-upload-pack', 'GET'],
      ['/git/acme/app.git/git-upload-pack?service=git-upload-pack', 'POST'],
      ['/git/api/v3/info/refs?service=git-upload-pack', 'GET'],
    ])
      expect([path, method, route(path, method)]).toEqual([path, method, { ok: false, reason: expect.any(String) }]);
  });
});
