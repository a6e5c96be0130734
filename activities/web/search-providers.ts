/** One search hit, as the model sees it: enough to cite and to decide what to fetch. */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

export type SearchFailureCode = 'unauthorized' | 'rate_limited' | 'provider_error' | 'unreachable';

/** A provider's refusal or failure, in words the model can act on. */
export class SearchError extends Error {
  constructor(
    readonly code: SearchFailureCode,
    message: string,
  ) {
    super(message);
  }
}

/** A web search backend. Each speaks its own wire protocol and answers in `SearchHit`s. */
export interface SearchProvider {
  readonly name: 'searxng' | 'brave' | 'tavily';
  search(query: string, maxResults: number): Promise<SearchHit[]>;
}

export interface ProviderOptions {
  /** The endpoint: SearXNG's base URL, or Brave's / Tavily's search URL. */
  url: string;
  apiKey?: string;
  timeoutMs: number;
}

/** A self-hosted SearXNG through its JSON API (`search.formats` must include `json`). */
export function searxngProvider(options: ProviderOptions): SearchProvider {
  return {
    name: 'searxng',
    async search(query, maxResults) {
      const url = new URL('search', options.url.endsWith('/') ? options.url : `${options.url}/`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const body = await call('SearXNG', url, { headers: { accept: 'application/json' } }, options.timeoutMs);
      if (!Array.isArray(body.results)) throw new SearchError('provider_error', 'SearXNG answered without a results list');
      return hits(body.results, 'content', maxResults);
    },
  };
}

/** Brave Search's Web Search API (`X-Subscription-Token`). */
export function braveProvider(options: ProviderOptions): SearchProvider {
  return {
    name: 'brave',
    async search(query, maxResults) {
      const url = new URL(options.url);
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(Math.min(maxResults, 20)));
      const headers = { accept: 'application/json', 'x-subscription-token': options.apiKey ?? '' };
      const body = await call('Brave Search', url, { headers }, options.timeoutMs);
      const results = (body.web as { results?: unknown } | undefined)?.results;
      // No `web` section is Brave's way of saying it found nothing.
      return Array.isArray(results) ? hits(results, 'description', maxResults) : [];
    },
  };
}

/** Tavily's search API (bearer key, JSON body). */
export function tavilyProvider(options: ProviderOptions & { searchDepth?: 'basic' | 'advanced' }): SearchProvider {
  return {
    name: 'tavily',
    async search(query, maxResults) {
      const init: RequestInit = {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${options.apiKey ?? ''}` },
        body: JSON.stringify({ query, max_results: maxResults, search_depth: options.searchDepth ?? 'basic' }),
      };
      const body = await call('Tavily', new URL(options.url), init, options.timeoutMs);
      if (!Array.isArray(body.results)) throw new SearchError('provider_error', 'Tavily answered without a results list');
      return hits(body.results, 'content', maxResults);
    },
  };
}

async function call(provider: string, url: URL, init: RequestInit, timeoutMs: number): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (error) {
    throw new SearchError('unreachable', `${provider} did not answer: ${(error as Error).message}`);
  }
  const text = await response.text();
  if (response.status === 401 || response.status === 403) {
    throw new SearchError(
      'unauthorized',
      `${provider} refused the request (HTTP ${response.status}): check its key or its JSON format setting`,
    );
  }
  if (response.status === 429) throw new SearchError('rate_limited', `${provider} is rate limiting searches (HTTP 429); try again later`);
  if (!response.ok) throw new SearchError('provider_error', `${provider} answered HTTP ${response.status}: ${text.slice(0, 200)}`);
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new SearchError('provider_error', `${provider} answered something that is not JSON`);
  }
}

function hits(results: unknown[], snippetField: string, maxResults: number): SearchHit[] {
  return results
    .flatMap((entry) => {
      const item = entry as Record<string, unknown>;
      if (typeof item.url !== 'string') return [];
      const snippet = typeof item[snippetField] === 'string' ? plain(item[snippetField]) : '';
      return [{ title: typeof item.title === 'string' ? plain(item.title) : item.url, url: item.url, snippet }];
    })
    .slice(0, maxResults);
}

/** Providers mark matches with tags (`<strong>`) and entities; the model wants plain text. */
function plain(text: string): string {
  return text
    .replace(/<[^>]+>/g, '')
    .replace(
      /&(amp|lt|gt|quot|#39|nbsp);/g,
      (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' })[name] ?? '',
    )
    .replace(/\s+/g, ' ')
    .trim();
}
