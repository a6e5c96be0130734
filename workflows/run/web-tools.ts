import { isCancellation, proxyActivities } from '@temporalio/workflow';
import type { ToolCall, ToolResult } from '../../activities/models/types';
import type { WebActivities, WebFetchResult, WebSearchResult } from '../../activities/web';

/**
 * A fetch is bounded by `web.fetch.timeoutMs` (20 s by default) inside the activity; this is
 * the backstop for a worker that dies mid-fetch. Reads are safe to retry.
 */
export const WEB_ACTIVITY_TIMEOUT = '2 minutes';

const web = proxyActivities<WebActivities>({
  startToCloseTimeout: WEB_ACTIVITY_TIMEOUT,
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 3 },
});

export const WEB_TOOLS = new Set(['web_fetch', 'web_search']);

/** Runs web_fetch or web_search; every failure (a refused address, a provider error) is data for the model. */
export async function runWebTool(call: ToolCall, input: Record<string, unknown>): Promise<ToolResult> {
  try {
    if (call.name === 'web_fetch') {
      const page = await web.webFetch({
        url: input.url as string,
        ...(input.maxCharacters ? { maxCharacters: input.maxCharacters as number } : {}),
      });
      return describeFetch(call, page);
    }
    const found = await web.webSearch({
      query: input.query as string,
      ...(input.maxResults ? { maxResults: input.maxResults as number } : {}),
    });
    return describeSearch(call, found);
  } catch (error) {
    if (isCancellation(error)) throw error;
    const failure = error as { message?: string; cause?: { message?: string } };
    return {
      callId: call.id,
      name: call.name,
      content: `${call.name} failed: ${failure.cause?.message ?? failure.message ?? String(error)}`,
      isError: true,
    };
  }
}

export function describeFetch(call: ToolCall, page: WebFetchResult): ToolResult {
  if (!page.ok)
    return { callId: call.id, name: call.name, content: `Could not fetch ${page.url} (${page.code}): ${page.error}`, isError: true };
  const facts = [`HTTP ${page.status}`, page.kind, `${page.bytes} bytes`, ...(page.truncated ? ['truncated'] : [])].join(', ');
  const redirected = page.redirects.length ? ` (after ${page.redirects.length} redirect${page.redirects.length > 1 ? 's' : ''})` : '';
  const header = [...(page.title ? [`# ${page.title}`] : []), `Source: ${page.url}${redirected} [${facts}]`].join('\n');
  return { callId: call.id, name: call.name, content: `${header}\n\n${page.text}` };
}

export function describeSearch(call: ToolCall, found: WebSearchResult): ToolResult {
  if (!found.ok) return { callId: call.id, name: call.name, content: `The search failed (${found.code}): ${found.error}`, isError: true };
  if (found.results.length === 0) return { callId: call.id, name: call.name, content: `No results for "${found.query}".` };
  const lines = found.results.map((hit, index) => `${index + 1}. ${hit.title}\n   ${hit.url}${hit.snippet ? `\n   ${hit.snippet}` : ''}`);
  return {
    callId: call.id,
    name: call.name,
    content: `Results for "${found.query}" (${found.provider}); fetch a page before you cite it:\n${lines.join('\n')}`,
  };
}
