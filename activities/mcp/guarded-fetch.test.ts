import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { guardedFetch, McpAddressRefused, refusalFor } from './guarded-fetch';

describe("the HTTP MCP client's address guard (the sandbox door's policy)", () => {
  it.each([
    ['127.0.0.1', 'public', /loopback/],
    ['10.1.2.3', 'public', /private/],
    ['169.254.169.254', 'public', /metadata/],
    ['::1', 'public', /loopback/],
    ['169.254.169.254', 'private', /metadata/],
    ['169.254.10.10', 'private', /link-local/],
    ['0.0.0.0', 'private', /unspecified/],
  ] as const)('refuses %s when the server is %s', (address, network, why) => {
    expect(refusalFor(address, network)).toMatch(why);
  });

  it.each([
    ['93.184.216.34', 'public'],
    ['127.0.0.1', 'private'],
    ['10.1.2.3', 'private'],
  ] as const)('lets %s through when the server is %s', (address, network) => {
    expect(refusalFor(address, network)).toBeUndefined();
  });

  describe('against a loopback server', () => {
    let server: Server;
    let port: number;
    const hits: string[] = [];
    beforeAll(async () => {
      server = createServer((req, res) => {
        hits.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
        if (req.url === '/big') return void res.end('y'.repeat(50_000));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it('refuses a name that resolves to it under the public policy, before any byte is sent', async () => {
      const fetch = guardedFetch({ network: 'public', maxBytes: 1_000, resolver: async () => ['127.0.0.1'] });
      await expect(fetch(`http://mcp.example.test:${port}/mcp`)).rejects.toThrow(McpAddressRefused);
      expect(hits).toEqual([]);
    });

    it('connects to the checked address under the private policy, sends the headers and body, and bounds the answer', async () => {
      const fetch = guardedFetch({ network: 'private', maxBytes: 1_000, resolver: async () => ['127.0.0.1'] });
      const response = await fetch(`http://mcp.example.test:${port}/mcp`, {
        method: 'POST',
        headers: { authorization: 'Bearer t' },
        body: '{}',
      });
      expect(await response.json()).toEqual({ ok: true });
      expect(hits).toEqual(['POST /mcp Bearer t']);
      const big = await fetch(`http://mcp.example.test:${port}/big`);
      await expect(big.text()).rejects.toThrow();
    });
  });
});
