import { describeBudget } from '../agents/profile';
import type { RunCost, RunRecord, RunStatus, StatusStep, TokenTotals } from '../workflows/contracts';

/**
 * How the router picked the run's agent, as every card says it: `Routed to review: a review
 * request on a pull request (rule review-request)`, `Routed to research by the classifier: …`.
 * Undefined for a run whose agent was named or kept by its thread.
 */
export function routingWords(status: Pick<RunStatus, 'routing'>): string | undefined {
  const routing = status.routing;
  if (!routing) return undefined;
  if (routing.reason === 'classifier') return `Routed to ${routing.agent} by the classifier: ${routing.note ?? 'no reason given'}`;
  if (routing.reason === 'default') return `Routed to ${routing.agent}: ${routing.note ?? 'no routing rule matched'} (the default)`;
  return `Routed to ${routing.agent}: ${routing.note ?? routing.reason} (rule ${routing.reason})`;
}

/** One status line, as the CLI streams it while a run works. */
export function formatStatusLine(status: RunStatus): string {
  const seconds = Math.round(status.elapsedMs / 1000);
  const parts = [`[${status.phase}]`, `turn ${status.turns}/${status.turnGuard}`, `${seconds}s`];
  const cost = formatCost(status.cost);
  if (cost) parts.push(cost);
  const cache = formatCacheShare(status.cacheShare, status.tokens);
  if (cache) parts.push(cache);
  if (status.lastTool) parts.push(`last tool ${status.lastTool}`);
  if (status.statusText) parts.push(`— ${status.statusText}`);
  return parts.join(' ');
}

/** The run record in words: outcome, bounds, counts, then the answer. */
export function formatRecord(record: RunRecord): string {
  const { profile } = record;
  const failedCalls = record.toolCalls.filter((call) => !call.ok).length;
  const lines = [
    `outcome: ${record.outcome}${record.endedBy ? ` (${record.endedBy})` : ''}`,
    `agent: ${profile.agent} · model ${profile.model.value} (${profile.model.chosenBy}) · budget ${describeBudget(profile.budget)}`,
    `turns: ${record.turns} · tokens ${formatTokens(record.tokens)} · cost ${formatCost(record.cost) ?? 'not priced'}${formatVsNoCache(record.cost)}${record.cacheShare !== undefined && formatCacheShare(record.cacheShare, record.tokens) ? ` · ${formatCacheShare(record.cacheShare, record.tokens)}` : ''}${record.spendCap ? ` · spend cap ${formatUsd(record.spendCap.usd)}` : ''} · tool calls ${record.toolCalls.length}${failedCalls ? ` (${failedCalls} failed)` : ''} · children ${record.children.length}`,
  ];
  if (record.jobWaits.polls > 0) lines.push(`job waits: ${record.jobWaits.polls} polls, ${Math.round(record.jobWaits.waitedMs / 1000)}s`);
  lines.push('', record.finalText || '(no answer text)');
  return lines.join('\n');
}

/** `in 1200 / out 300 / cache read 5000 / cache write 800` (cache kinds only when used). */
export function formatTokens(tokens: TokenTotals): string {
  return [
    `in ${tokens.input}`,
    `out ${tokens.output}`,
    ...(tokens.cacheRead ? [`cache read ${tokens.cacheRead}`] : []),
    ...(tokens.cacheWrite ? [`cache write ${tokens.cacheWrite}`] : []),
  ].join(' / ');
}

/**
 * `$0.0123`, with the models that have no price named (`$0.0123 + unpriced scripted:x`);
 * undefined when nothing was priced (the models that answered have no price).
 */
export function formatCost(cost: RunCost | undefined): string | undefined {
  if (!cost || (cost.usd === 0 && cost.unpriced.length > 0)) return undefined;
  return `${formatUsd(cost.usd)}${cost.unpriced.length ? ` + unpriced ${cost.unpriced.join(', ')}` : ''}`;
}

/** `cache 87 %`: the share of input tokens served from the prompt cache; undefined before any cache use. */
export function formatCacheShare(share: number | undefined, tokens: TokenTotals): string | undefined {
  if (share === undefined || tokens.cacheRead + tokens.cacheWrite === 0) return undefined;
  return `cache ${Math.round(share * 100)} %`;
}

/** ` (no cache: $0.0400)`: what the same tokens would have cost with no prompt cache, when known and different. */
function formatVsNoCache(cost: RunCost | undefined): string {
  if (!cost?.withoutCacheUsd || cost.withoutCacheUsd === cost.usd) return '';
  return ` (no cache: ${formatUsd(cost.withoutCacheUsd)})`;
}

/** Dollars with four decimals under a dollar (a turn costs cents), two above. */
export function formatUsd(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/**
 * How each step's state shows on a checklist: Slack emoji, an emoji for GitHub's Markdown, a glyph
 * every text font has (the session page: no emoji font needed), and words.
 */
export const STEP_MARKS: Record<StatusStep['state'], { slack: string; mark: string; glyph: string; words: string }> = {
  done: { slack: ':white_check_mark:', mark: '✅', glyph: '✔', words: 'done' },
  running: { slack: ':arrow_forward:', mark: '▶️', glyph: '▶', words: 'running' },
  pending: { slack: ':white_circle:', mark: '⚪', glyph: '○', words: 'pending' },
  failed: { slack: ':x:', mark: '❌', glyph: '✖', words: 'failed' },
  skipped: { slack: ':fast_forward:', mark: '⏭️', glyph: '–', words: 'skipped' },
};

/** `3 of 5 steps done`: the checklist's progress in words. */
export function stepsProgress(steps: readonly StatusStep[]): string {
  return `${steps.filter((step) => step.state === 'done').length} of ${steps.length} step${steps.length === 1 ? '' : 's'} done`;
}
