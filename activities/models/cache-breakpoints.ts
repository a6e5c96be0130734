import type { CacheHint, TurnPurpose } from '../../workflows/contracts/model';

/** The Messages API accepts at most four `cache_control` breakpoints in a request. */
export const MAX_BREAKPOINTS = 4;

/**
 * Where one request marks the prompt cache: `prefix` marks the end of tools + system (stable for
 * the whole run), and each entry of `messages` is a count of leading conversation messages
 * whose last block is marked.
 */
export interface BreakpointPlan {
  prefix: boolean;
  messages: number[];
}

/**
 * Places the breakpoints of one request from the workflow's cache hint:
 * - tools + system: read by every request, and the only prefix a compaction leaves;
 * - `previous`: exactly where the previous request wrote, so this one reads it however many
 *   blocks the last turn added (the API looks back only about 20 blocks from a breakpoint, and a
 *   turn with many parallel calls adds two blocks a call);
 * - `stable`: the longest prefix the next request sends unchanged, written for it to read (for a
 *   compaction, the task it keeps: before `previous`, so nothing new is written). When
 *   the whole conversation is stable this is also the newest block; when the next request will
 *   cut the newest result to head and tail, the newest block is not marked (writing what is never
 *   read again would cost more than sending it uncached).
 * Without a hint (inputs from before hints existed) the system prompt and the last block are
 * marked, as before; a compaction or summary turn without a hint (sent without the run's tools)
 * marks nothing, since no later request shares its prefix.
 */
export function planBreakpoints(hint: CacheHint | undefined, messageCount: number, purpose?: TurnPurpose): BreakpointPlan {
  if (!hint) return purpose ? { prefix: false, messages: [] } : { prefix: true, messages: messageCount > 0 ? [messageCount] : [] };
  const stable = clamp(hint.stable, messageCount);
  const previous = hint.previous === undefined ? 0 : clamp(hint.previous, messageCount);
  // A compaction keeps less than the previous request wrote: it still reads there (a breakpoint
  // on an entry that exists writes nothing), and marks what survives it.
  const messages = [...new Set([previous, stable])].filter((count) => count > 0).sort((a, b) => a - b);
  return { prefix: true, messages: messages.slice(-(MAX_BREAKPOINTS - 1)) };
}

function clamp(count: number, max: number): number {
  return Math.max(0, Math.min(Math.floor(count), max));
}
