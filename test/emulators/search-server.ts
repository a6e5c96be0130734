import { createServer, type IncomingHttpHeaders } from 'node:http';
import { type AddressInfo } from 'node:net';

/** A page the emulated engine knows about. */
export interface IndexedPage {
  title: string;
  url: string;
  content: string;
}

export type SearchProtocol = 'searxng' | 'brave' | 'tavily';

export interface SearchServer {
  protocol: SearchProtocol;
  /** What to configure: SearXNG's base URL, or the Brave / Tavily search endpoint. */
  url: string;
  requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders; body?: unknown }>;
  /** Answer the next request with this HTTP status (in the protocol's error shape) instead. */
  failNext(status: number): void;
  close(): Promise<void>;
}

/**
 * A loopback search engine that speaks one provider's wire protocol over a small index:
 * SearXNG's `GET /search?format=json` (403 when another format is asked for, as SearXNG
 * does when the format is not enabled), Brave's `GET /res/v1/web/search` with
 * `X-Subscription-Token`, or Tavily's `POST /search` with a bearer key and a JSON body.
 * A page matches when it contains any word of the query; more matching words rank higher.
 */
export async function startSearchServer(protocol: SearchProtocol, index: IndexedPage[], apiKey?: string): Promise<SearchServer> {
  const requests: SearchServer['requests'] = [];
  const failures: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://local');
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = raw ? safeJson(raw) : undefined;
      requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search, headers: req.headers, ...(body ? { body } : {}) });
      const json = (status: number, payload: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      const forced = failures.shift();
      if (forced) return json(forced, errorBody(protocol, forced, 'forced failure'));
      if (protocol === 'searxng') {
        if (req.method !== 'GET' || url.pathname !== '/search') return json(404, { error: 'not found' });
        if (url.searchParams.get('format') !== 'json') return void res.writeHead(403).end('Forbidden');
        const query = url.searchParams.get('q') ?? '';
        const results = rank(index, query).map((page, i) => ({
          ...page,
          engine: 'local',
          engines: ['local'],
          score: 1 / (i + 1),
          category: 'general',
        }));
        return json(200, {
          query,
          number_of_results: results.length,
          results,
          answers: [],
          corrections: [],
          infoboxes: [],
          suggestions: [],
          unresponsive_engines: [],
        });
      }
      if (protocol === 'brave') {
        if (req.method !== 'GET' || url.pathname !== '/res/v1/web/search') return json(404, errorBody(protocol, 404, 'not found'));
        if (req.headers['x-subscription-token'] !== apiKey)
          return json(401, errorBody(protocol, 401, 'The provided subscription token is invalid.'));
        const query = url.searchParams.get('q') ?? '';
        const count = Number(url.searchParams.get('count') ?? 20);
        const found = rank(index, query).slice(0, count);
        const results = found.map((page) => ({
          type: 'search_result',
          title: page.title,
          url: page.url,
          description: emphasise(page.content, query),
        }));
        return json(200, { type: 'search', query: { original: query }, ...(results.length ? { web: { type: 'search', results } } : {}) });
      }
      if (req.method !== 'POST' || url.pathname !== '/search') return json(404, errorBody(protocol, 404, 'not found'));
      if (req.headers.authorization !== `Bearer ${apiKey}`)
        return json(401, errorBody(protocol, 401, 'Unauthorized: missing or invalid API key.'));
      const request = (body ?? {}) as { query?: string; max_results?: number };
      const found = rank(index, request.query ?? '').slice(0, request.max_results ?? 5);
      return json(200, {
        query: request.query,
        answer: null,
        images: [],
        results: found.map((page, i) => ({
          title: page.title,
          url: page.url,
          content: page.content,
          score: 1 / (i + 1),
          raw_content: null,
        })),
        response_time: 0.01,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    protocol,
    url: protocol === 'brave' ? `${base}/res/v1/web/search` : protocol === 'tavily' ? `${base}/search` : base,
    requests,
    failNext: (status) => void failures.push(status),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function rank(index: IndexedPage[], query: string): IndexedPage[] {
  const words = query
    .toLowerCase()
    .split(/\W+/)
    .filter((word) => word.length > 1);
  return index
    .map((page) => ({ page, score: words.filter((word) => `${page.title} ${page.content}`.toLowerCase().includes(word)).length }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score)
    .map((entry) => entry.page);
}

/** Brave marks matched words with <strong>, and escapes entities. */
function emphasise(text: string, query: string): string {
  const words = query.split(/\W+/).filter((word) => word.length > 1);
  let out = text.replace(/&/g, '&amp;');
  for (const word of words) out = out.replace(new RegExp(`\\b(${word})\\b`, 'gi'), '<strong>$1</strong>');
  return out;
}

function errorBody(protocol: SearchProtocol, status: number, message: string): unknown {
  if (protocol === 'brave')
    return {
      type: 'ErrorResponse',
      error: { id: 'local', status, code: status === 401 ? 'SUBSCRIPTION_TOKEN_INVALID' : 'ERROR', detail: message },
    };
  if (protocol === 'tavily') return { detail: { error: message } };
  return { error: message };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
