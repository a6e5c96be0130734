import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { safeFetch, type SafeFetchOptions } from './safe-fetch';

/** A loopback page server; `hits` counts requests per path, so a refusal can be shown to send nothing. */
async function pageServer(): Promise<{ server: Server; base: string; port: number; hits: Map<string, number> }> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/hello') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('hello there');
    if (path.startsWith('/redirect?to=')) {
      return void res.writeHead(302, { location: decodeURIComponent(path.slice('/redirect?to='.length)) }).end();
    }
    if (path === '/loop') return void res.writeHead(301, { location: '/loop' }).end();
    if (path === '/big') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(50_000));
    if (path === '/gzip') {
      return void res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync('y'.repeat(100_000)));
    }
    if (path === '/slow') return void res.writeHead(200, { 'content-type': 'text/plain' }).write('partial');
    res.writeHead(404).end('missing');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, base: `http://127.0.0.1:${port}`, port, hits };
}

describe('safeFetch', () => {
  let site: Awaited<ReturnType<typeof pageServer>>;
  let other: Awaited<ReturnType<typeof pageServer>>;
  let options: SafeFetchOptions;
  beforeAll(async () => {
    site = await pageServer();
    other = await pageServer();
    options = { timeoutMs: 5_000, maxBytes: 10_000, maxRedirects: 3, userAgent: 'test', allowHosts: [`127.0.0.1:${site.port}`] };
  });
  afterAll(async () => {
    for (const s of [site, other]) {
      s.server.closeAllConnections();
      await new Promise((resolve) => s.server.close(resolve));
    }
  });

  it('fetches an allowlisted loopback server', async () => {
    const page = await safeFetch(`${site.base}/hello`, options);
    expect(page).toMatchObject({ ok: true, status: 200, contentType: 'text/plain', truncated: false });
    expect(page.ok && page.body.toString()).toBe('hello there');
  });

  it('refuses loopback, metadata and private addresses when they are not allowlisted, before connecting', async () => {
    const direct = await safeFetch(`${other.base}/hello`, options);
    expect(direct).toMatchObject({ ok: false, code: 'blocked_address' });
    expect(other.hits.get('/hello')).toBeUndefined();
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[::1]/', 'http://[::ffff:127.0.0.1]:1/', 'http://0.0.0.0/']) {
      expect(await safeFetch(url, options)).toMatchObject({ ok: false, code: 'blocked_address' });
    }
  });

  it('checks names after resolution: a name that resolves to a private address is refused', async () => {
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    const page = await safeFetch(`http://rebind.example.test:${other.port}/hello`, { ...options, resolve });
    expect(page).toMatchObject({ ok: false, code: 'blocked_address', error: expect.stringContaining('127.0.0.1 (loopback)') });
    expect(other.hits.get('/hello')).toBeUndefined();
  });

  it('connects to the address it checked (an allowlisted name is resolved once)', async () => {
    let lookups = 0;
    const resolve = async () => {
      lookups += 1;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const page = await safeFetch(`http://docs.internal.test:${site.port}/hello`, {
      ...options,
      allowHosts: [`docs.internal.test:${site.port}`],
      resolve,
    });
    expect(page).toMatchObject({ ok: true, status: 200 });
    expect(lookups).toBe(1);
  });

  it('re-checks every redirect: a hop to a non-allowlisted loopback port or the metadata address is refused', async () => {
    const toOther = await safeFetch(`${site.base}/redirect?to=${encodeURIComponent(`${other.base}/hello`)}`, options);
    expect(toOther).toMatchObject({ ok: false, code: 'blocked_address', redirects: [`${other.base}/hello`] });
    expect(other.hits.get('/hello')).toBeUndefined();
    const toLocalhost = await safeFetch(`${site.base}/redirect?to=${encodeURIComponent(`http://localhost:${other.port}/hello`)}`, options);
    expect(toLocalhost).toMatchObject({ ok: false, code: 'blocked_address' });
    const toMetadata = await safeFetch(`${site.base}/redirect?to=${encodeURIComponent('http://169.254.169.254/')}`, options);
    expect(toMetadata).toMatchObject({ ok: false, code: 'blocked_address', error: expect.stringContaining('metadata') });
    const allowed = await safeFetch(`${site.base}/redirect?to=%2Fhello`, options);
    expect(allowed).toMatchObject({ ok: true, url: `${site.base}/hello`, redirects: [`${site.base}/hello`] });
  });

  it('caps redirects, bytes (also after decompression) and time', async () => {
    expect(await safeFetch(`${site.base}/loop`, options)).toMatchObject({ ok: false, code: 'too_many_redirects' });
    const big = await safeFetch(`${site.base}/big`, options);
    expect(big.ok && [big.body.length, big.truncated]).toEqual([10_000, true]);
    const zipped = await safeFetch(`${site.base}/gzip`, options);
    expect(zipped.ok && [zipped.body.length, zipped.truncated, zipped.body.toString()[0]]).toEqual([10_000, true, 'y']);
    expect(await safeFetch(`${site.base}/slow`, { ...options, timeoutMs: 300 })).toMatchObject({ ok: false, code: 'timeout' });
  });

  it('refuses other schemes and URLs with credentials', async () => {
    expect(await safeFetch('file:///etc/passwd', options)).toMatchObject({ ok: false, code: 'invalid_url' });
    expect(await safeFetch(`http://user:pw@127.0.0.1:${site.port}/hello`, options)).toMatchObject({ ok: false, code: 'invalid_url' });
    expect(await safeFetch('not a url', options)).toMatchObject({ ok: false, code: 'invalid_url' });
  });
});
