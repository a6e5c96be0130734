import { type WebConfig } from '../../infra/config/web-section';
import { type WebActivityDeps } from '.';
import { braveProvider, searxngProvider, tavilyProvider, type SearchProvider } from './search-providers';

/**
 * The web activities' dependencies from the `web` config section and the search keys in the
 * environment. A provider that is chosen but has no key is off, with the variable to set.
 */
export function webDepsFromConfig(
  config: WebConfig,
  readKey: (name: 'braveSearchApiKey' | 'tavilyApiKey') => string | undefined,
  searchPrices: Partial<Record<'brave' | 'tavily' | 'searxng', number>> = {},
): WebActivityDeps & { searchOff?: string } {
  const { fetch, search } = config;
  const deps: WebActivityDeps & { searchOff?: string } = {};
  if (fetch.enabled) {
    deps.fetch = {
      timeoutMs: fetch.timeoutMs,
      maxBytes: fetch.maxBytes,
      maxRedirects: fetch.maxRedirects,
      allowHosts: fetch.allowHosts,
      userAgent: fetch.userAgent,
    };
  }
  let provider: SearchProvider | undefined;
  if (search.provider === 'searxng' && search.searxng.url) {
    provider = searxngProvider({ url: search.searxng.url, timeoutMs: search.timeoutMs });
  } else if (search.provider === 'brave') {
    const apiKey = readKey('braveSearchApiKey');
    if (apiKey) provider = braveProvider({ url: search.brave.url, apiKey, timeoutMs: search.timeoutMs });
    else deps.searchOff = 'web.search.provider is brave but BRAVE_SEARCH_API_KEY is not set';
  } else if (search.provider === 'tavily') {
    const apiKey = readKey('tavilyApiKey');
    if (apiKey)
      provider = tavilyProvider({ url: search.tavily.url, apiKey, timeoutMs: search.timeoutMs, searchDepth: search.tavily.searchDepth });
    else deps.searchOff = 'web.search.provider is tavily but TAVILY_API_KEY is not set';
  }
  if (provider) deps.search = provider;
  const price = search.provider ? searchPrices[search.provider as keyof typeof searchPrices] : undefined;
  if (provider && price !== undefined) deps.searchCostUsd = price;
  return deps;
}
