import type { ChatMessage, ToolResult } from '../contracts/model';

/**
 * Keeps what the model receives inside its context window, whatever the run does: older
 * tool output is cut to its head and tail (the full text stays in the workspace, and the
 * cut says where), and near the window's limit older turns are replaced by a summary the
 * model writes (a compaction turn). The task, steers and the latest results are never cut.
 * Pure functions, so the workflow stays deterministic and unit tests drive them directly.
 */

/** An older tool result longer than this is cut to its head and tail. */
export const OLD_RESULT_MAX_CHARS = 2_000;
const KEEP_HEAD = 800;
const KEEP_TAIL = 800;
/** The window assumed until a provider reports one (tokens): the smallest of the models we configure. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
/** Compaction starts when the conversation is estimated past this share of the window. */
export const COMPACT_AT_SHARE = 0.6;
/** Messages kept verbatim after a compaction (the latest turns and their results). */
export const KEEP_RECENT_MESSAGES = 4;
export const STEER_PREFIX = /^\(steer( from [^)]*)?\) /;

const SAVED_AT = /\[full output saved at ([^\]\n]+)\]/;

/** Cuts one result to head and tail, naming how much was cut and where the whole text is. */
export function cutResult(result: ToolResult): ToolResult {
  const content = result.content;
  if (content.length <= OLD_RESULT_MAX_CHARS) return result;
  const saved = SAVED_AT.exec(content)?.[1];
  const cut = content.length - KEEP_HEAD - KEEP_TAIL;
  const where = saved ? `; the full output is in ${saved} (read it with read_file or sed -n)` : '';
  return {
    ...result,
    content: `${content.slice(0, KEEP_HEAD)}\n[… ${cut} characters of this older result cut${where} …]\n${content.slice(-KEEP_TAIL)}`,
  };
}

/** Cuts the results of every tool message but the latest; returns how many were cut. */
export function cutOlderResults(messages: ChatMessage[]): number {
  let latest = -1;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    if (messages[i].role === 'tool') {
      latest = i;
      break;
    }
  }
  let cut = 0;
  for (let i = 0; i < latest; i += 1) {
    const message = messages[i];
    if (message.role !== 'tool' || message.results.every((result) => result.content.length <= OLD_RESULT_MAX_CHARS)) continue;
    messages[i] = { role: 'tool', results: message.results.map(cutResult) };
    cut += 1;
  }
  return cut;
}

/**
 * How many leading messages the next request will send unchanged: all of them, unless the
 * latest tool message holds a result the next `cutOlderResults` will cut (then the prefix ends
 * just before it). Older results are cut already (a cut result stays within the limit), and
 * whatever follows is only ever appended to. The model turn writes the prompt cache up to here.
 */
export function stablePrefixLength(messages: ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message.role !== 'tool') continue;
    return message.results.some((result) => result.content.length > OLD_RESULT_MAX_CHARS) ? i : messages.length;
  }
  return messages.length;
}

/** About four characters a token, as the providers' own rough guides say. */
export function estimateTokens(system: string, messages: ChatMessage[]): number {
  let chars = system.length;
  for (const message of messages) {
    if (message.role === 'tool') for (const result of message.results) chars += result.content.length + 40;
    else if (message.role === 'user') chars += message.text.length;
    else chars += message.text.length + JSON.stringify(message.toolCalls).length;
  }
  return Math.ceil(chars / 4);
}

/** The index where the recent tail starts: `keep` messages back, moved to an assistant message so calls stay with results. */
export function recentStart(messages: ChatMessage[], from: number, keep = KEEP_RECENT_MESSAGES): number {
  let start = Math.max(from, messages.length - keep);
  while (start > from && messages[start].role !== 'assistant') start -= 1;
  return start;
}

/** Whether compacting would drop anything: there must be turns between the task and the recent tail. */
export function canCompact(messages: ChatMessage[], taskLength: number): boolean {
  return recentStart(messages, taskLength) - taskLength >= 2;
}

/**
 * The conversation after a compaction: the task as it was, the summary (counting the
 * assistant turns it replaces, so a scripted model keeps its place), the steers from the
 * summarised part verbatim, then the recent tail.
 */
export function compactMessages(messages: ChatMessage[], taskLength: number, summary: string): ChatMessage[] {
  const start = recentStart(messages, taskLength);
  const middle = messages.slice(taskLength, start);
  const assistantTurns = middle.reduce(
    (sum, message) => sum + (message.role === 'assistant' ? 1 : message.role === 'user' ? (message.compacted?.assistantTurns ?? 0) : 0),
    0,
  );
  const steers = middle.filter((message) => message.role === 'user' && STEER_PREFIX.test(message.text));
  return [
    ...messages.slice(0, taskLength),
    { role: 'user', text: `(summary of the earlier part of this run, written by you)\n${summary}`, compacted: { assistantTurns } },
    ...steers,
    ...messages.slice(start),
  ];
}

export const COMPACTION_INSTRUCTION =
  '(system) The conversation is near the context window. Summarise the work so far for yourself: the goal, what you did and found (files, commands, results, numbers), what is decided, and what is left. Keep paths and names exact. The summary replaces the older turns; the task, steers and latest results stay.';

/** What an inheriting child is told when the start of its parent's conversation was left out. */
export const INHERITED_CUT_NOTE = "(the earlier part of the parent's conversation was left out to fit your context window)";

/**
 * The parent's conversation as an inheriting child (`debug`) starts from: every message with its
 * tool calls and results, less the calls of the parent's latest turn (the `task` call starting
 * this child among them: they have no results yet, and a provider refuses a call left unanswered).
 * Bounded to `budgetTokens`: first every result is cut to its head and tail, then the oldest
 * exchanges are left out (never splitting a call from its results), with a note saying so.
 */
export function inheritedConversation(messages: readonly ChatMessage[], budgetTokens: number): ChatMessage[] {
  const list: ChatMessage[] = [...messages];
  const last = list[list.length - 1];
  if (last?.role === 'assistant' && last.toolCalls.length > 0) {
    list.pop();
    if (last.text.trim()) list.push({ role: 'assistant', text: last.text, toolCalls: [] });
  }
  if (estimateTokens('', list) <= budgetTokens) return list;
  const cut = list.map((message): ChatMessage =>
    message.role === 'tool' ? { role: 'tool', results: message.results.map(cutResult) } : message,
  );
  let start = 0;
  while (start < cut.length - 1 && estimateTokens('', cut.slice(start)) > budgetTokens) {
    start += 1;
    // A kept part starts at a person's message, so no result is left without its call.
    while (start < cut.length - 1 && cut[start].role !== 'user') start += 1;
  }
  return start > 0 ? [{ role: 'user', text: INHERITED_CUT_NOTE }, ...cut.slice(start)] : cut;
}
