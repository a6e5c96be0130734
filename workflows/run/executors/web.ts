import { isCancellation } from '@temporalio/workflow';
import type { ToolCall, ToolResult } from '../../contracts/model';
import type { WebFetchResult, WebSearchResult } from '../../../activities/web';
import { errorMessage, fail, ok } from './tool-result';
import { type ToolExecutor } from './context';

/** web_fetch and web_search: every failure (a refused address, a provider error) is data for the model. */
export const webFetch: ToolExecutor<'web_fetch'> = async (ctx, call, input) => {
  try {
    const page = await ctx.activities.web.webFetch({
      url: input.url,
      ...(input.maxCharacters ? { maxCharacters: input.maxCharacters } : {}),
    });
    return describeFetch(call, page);
  } catch (error) {
    if (isCancellation(error)) throw error;
    return fail(call, `${call.name} failed: ${errorMessage(error)}`);
  }
};

export const webSearch: ToolExecutor<'web_search'> = async (ctx, call, input) => {
  try {
    const found = await ctx.activities.web.webSearch({
      query: input.query,
      ...(input.maxResults ? { maxResults: input.maxResults } : {}),
    });
    if (found.ok && found.costUsd !== undefined) ctx.state.recordSearchCost(found.costUsd);
    return describeSearch(call, found);
  } catch (error) {
    if (isCancellation(error)) throw error;
    return fail(call, `${call.name} failed: ${errorMessage(error)}`);
  }
};

export function describeFetch(call: ToolCall, page: WebFetchResult): ToolResult {
  if (!page.ok) return fail(call, `Could not fetch ${page.url} (${page.code}): ${page.error}`);
  const facts = [`HTTP ${page.status}`, page.kind, `${page.bytes} bytes`, ...(page.truncated ? ['truncated'] : [])].join(', ');
  const redirected = page.redirects.length ? ` (after ${page.redirects.length} redirect${page.redirects.length > 1 ? 's' : ''})` : '';
  const header = [...(page.title ? [`# ${page.title}`] : []), `Source: ${page.url}${redirected} [${facts}]`].join('\n');
  return ok(call, `${header}\n\n${page.text}`);
}

export function describeSearch(call: ToolCall, found: WebSearchResult): ToolResult {
  if (!found.ok) return fail(call, `The search failed (${found.code}): ${found.error}`);
  if (found.results.length === 0) return ok(call, `No results for "${found.query}".`);
  const lines = found.results.map((hit, index) => `${index + 1}. ${hit.title}\n   ${hit.url}${hit.snippet ? `\n   ${hit.snippet}` : ''}`);
  return ok(call, `Results for "${found.query}" (${found.provider}); fetch a page before you cite it:\n${lines.join('\n')}`);
}
