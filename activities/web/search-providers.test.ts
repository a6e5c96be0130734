import { startSearchServer, type IndexedPage, type SearchServer } from '../../test/emulators/search-server';
import { braveProvider, SearchError, searxngProvider, tavilyProvider, type SearchProvider } from './search-providers';

const INDEX: IndexedPage[] = [
  {
    title: 'Temporal docs: continue-as-new',
    url: 'https://docs.example.test/can',
    content: 'Continue-as-new keeps workflow history small & bounded.',
  },
  { title: 'Unrelated', url: 'https://other.example.test/', content: 'Nothing about workflows here.' },
];

const cases: Array<[string, (server: SearchServer, key?: string) => SearchProvider]> = [
  ['searxng', (server) => searxngProvider({ url: server.url, timeoutMs: 5_000 })],
  ['brave', (server, key) => braveProvider({ url: server.url, apiKey: key, timeoutMs: 5_000 })],
  ['tavily', (server, key) => tavilyProvider({ url: server.url, apiKey: key, timeoutMs: 5_000 })],
];

describe.each(cases)('the %s provider against its wire emulator', (protocol, make) => {
  let server: SearchServer;
  beforeAll(async () => {
    server = await startSearchServer(protocol as SearchServer['protocol'], INDEX, 'key-123');
  });
  afterAll(() => server.close());

  it('returns title, URL and a plain-text snippet, ranked, at most maxResults', async () => {
    const hits = await make(server, 'key-123').search('continue-as-new workflow history', 1);
    expect(hits).toEqual([
      {
        title: 'Temporal docs: continue-as-new',
        url: 'https://docs.example.test/can',
        snippet: 'Continue-as-new keeps workflow history small & bounded.',
      },
    ]);
    const last = server.requests[server.requests.length - 1];
    if (protocol === 'searxng') expect(last.path).toMatch(/^\/search\?q=continue-as-new\+workflow\+history&format=json$/);
    if (protocol === 'brave') expect(last.headers['x-subscription-token']).toBe('key-123');
    if (protocol === 'tavily') expect(last.body).toMatchObject({ query: 'continue-as-new workflow history', max_results: 1 });
  });

  it('answers an empty list when nothing matches', async () => {
    await expect(make(server, 'key-123').search('zzzz', 5)).resolves.toEqual([]);
  });

  it('turns refusals and rate limits into named failures', async () => {
    if (protocol !== 'searxng') {
      await expect(make(server, 'wrong').search('workflow', 5)).rejects.toMatchObject({ code: 'unauthorized' });
    }
    server.failNext(429);
    await expect(make(server, 'key-123').search('workflow', 5)).rejects.toMatchObject({ code: 'rate_limited' });
    server.failNext(502);
    const failure = await make(server, 'key-123')
      .search('workflow', 5)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SearchError);
    expect(failure).toMatchObject({ code: 'provider_error' });
  });
});

it('names an unreachable provider', async () => {
  const provider = searxngProvider({ url: 'http://127.0.0.1:9', timeoutMs: 2_000 });
  await expect(provider.search('x', 3)).rejects.toMatchObject({ code: 'unreachable' });
});
