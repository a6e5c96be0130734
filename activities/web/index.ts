import { toReadable } from './readable';
import { safeFetch, type SafeFetchOptions } from './safe-fetch';
import { SearchError, type SearchHit, type SearchProvider } from './search-providers';

export { safeFetch, allowlisted, type SafeFetchOptions, type FetchLimits } from './safe-fetch';
export { classifyAddress, isPublicAddress } from './address-guard';
export { braveProvider, searxngProvider, tavilyProvider, SearchError, type SearchHit, type SearchProvider } from './search-providers';

export interface WebActivityDeps {
  /** The fetcher's caps and allowlist; no `fetch` means web_fetch is off in this deployment. */
  fetch?: SafeFetchOptions;
  /** The configured search backend; none means web_search is off. */
  search?: SearchProvider;
  /** USD per search with this provider (`prices.search`), where it charges. */
  searchCostUsd?: number;
}

export interface WebFetchInput {
  url: string;
  maxCharacters?: number;
}

export type WebFetchResult =
  | {
      ok: true;
      url: string;
      status: number;
      kind: string;
      title?: string;
      text: string;
      truncated: boolean;
      bytes: number;
      redirects: string[];
    }
  | { ok: false; url: string; code: string; error: string };

export interface WebSearchInput {
  query: string;
  maxResults?: number;
}

export type WebSearchResult =
  { ok: true; provider: string; query: string; results: SearchHit[]; costUsd?: number } | { ok: false; code: string; error: string };

export const DEFAULT_FETCH_CHARACTERS = 40_000;
export const DEFAULT_SEARCH_RESULTS = 8;

/**
 * `webFetch` and `webSearch`: the worker's own HTTP client (not the sandbox's network), with
 * every failure returned as data for the model. Only the results' text reaches history,
 * capped by `maxCharacters`.
 */
export function createWebActivities(deps: WebActivityDeps) {
  return {
    async webFetch(input: WebFetchInput): Promise<WebFetchResult> {
      if (!deps.fetch) return { ok: false, url: input.url, code: 'not_configured', error: 'web fetch is turned off in this deployment' };
      const page = await safeFetch(input.url, deps.fetch);
      if (!page.ok) return { ok: false, url: page.url, code: page.code, error: page.error };
      const readable = await toReadable(page.url, page.contentType, page.body);
      const limit = input.maxCharacters ?? DEFAULT_FETCH_CHARACTERS;
      const cut = readable.text.length > limit;
      const text = cut ? readable.text.slice(0, limit) : readable.text;
      if (page.status >= 400) {
        return { ok: false, url: page.url, code: 'http_status', error: `HTTP ${page.status} from ${page.url}: ${text.slice(0, 500)}` };
      }
      return {
        ok: true,
        url: page.url,
        status: page.status,
        kind: readable.kind,
        ...(readable.title ? { title: readable.title } : {}),
        text,
        truncated: cut || page.truncated,
        bytes: page.body.length,
        redirects: page.redirects,
      };
    },

    async webSearch(input: WebSearchInput): Promise<WebSearchResult> {
      if (!deps.search) return { ok: false, code: 'not_configured', error: 'no search provider is configured in this deployment' };
      try {
        const results = await deps.search.search(input.query, input.maxResults ?? DEFAULT_SEARCH_RESULTS);
        return {
          ok: true,
          provider: deps.search.name,
          query: input.query,
          results,
          ...(deps.searchCostUsd !== undefined ? { costUsd: deps.searchCostUsd } : {}),
        };
      } catch (error) {
        if (error instanceof SearchError) return { ok: false, code: error.code, error: error.message };
        return { ok: false, code: 'provider_error', error: (error as Error).message ?? String(error) };
      }
    },
  };
}

export type WebActivities = ReturnType<typeof createWebActivities>;
