import { setTimeout as sleep } from 'node:timers/promises';
import { throwIfCancelled, type CallContext } from './activity-context';
import { loadScript, resolveScriptPath, type ScriptAlternative, type ScriptCondition, type ScriptTurn } from './scripted-script';
import { lastToolResult, renderTemplate, renderValue, viewConversation, type ScriptView } from './scripted-template';
import type { ChatMessage, ModelTurnInput, ModelTurnResult, TokenUsage } from '../../workflows/contracts/model';

export interface ScriptedProviderOptions {
  baseDir: string;
  /** The scripted directories by name (absolute, or relative to `baseDir`); nothing outside them is read. */
  dirs: Readonly<Record<string, string>>;
}

/**
 * Plays one turn of a scripted model. The turn is chosen by how many assistant messages the
 * conversation already holds, never by a counter of our own, so a retried or replayed
 * activity plays the same turn. Past the end of the script it answers with a final text.
 */
export async function scriptedTurn(
  path: string,
  input: ModelTurnInput,
  call: CallContext,
  options: ScriptedProviderOptions,
): Promise<ModelTurnResult> {
  const file = await resolveScriptPath(path, options);
  const turns = await loadScript(file);
  const model = `scripted:${path}`;
  if (input.purpose === 'compaction') {
    // A compaction is not a turn of the script: it answers with a summary and the script keeps its place.
    const text = compactionSummary(input.messages);
    return { text, toolCalls: [], stopReason: 'end_turn', usage: estimateUsage(input, text), model };
  }
  // A compaction's summary stands for the assistant turns it replaced, so the count goes on.
  const index = input.messages.reduce(
    (count, message) => count + (message.role === 'assistant' ? 1 : message.role === 'user' ? (message.compacted?.assistantTurns ?? 0) : 0),
    0,
  );
  // A closing summary is sent with the run's tools (for the prompt cache) but may not use them: a script sees none.
  const view = viewConversation(
    input.messages,
    index,
    input.runId,
    input.purpose ? [] : input.tools.map((tool) => tool.name),
    input.system,
  );
  const turn = turns[index];
  if (!turn) {
    const text = `The script ${path} has no turn ${index + 1} (it has ${turns.length}), so this run ends here.`;
    return { text, toolCalls: [], stopReason: 'end_turn', usage: estimateUsage(input, text), model };
  }
  const chosen = chooseAlternative(turn, view);
  if (chosen.delayMs) await waitCancellably(chosen.delayMs, call);
  throwIfCancelled(call);
  const text = renderTemplate(chosen.text, view);
  const toolCalls = chosen.toolCalls.map((toolCall, k) => ({
    id: toolCall.id ?? `call_${index}_${k}`,
    name: toolCall.name,
    input: renderValue(toolCall.input, view),
  }));
  const usage = chosen.usage ?? estimateUsage(input, text, toolCalls);
  return { text, toolCalls, stopReason: stopReasonFor(usage, input.maxTokens, toolCalls.length), usage, model };
}

/**
 * As a real provider does, a turn whose output reached the per-call cap reports
 * `max_tokens` (a script drives a run into its token cap with `usage.outputTokens`).
 */
export function stopReasonFor(usage: TokenUsage, maxTokens: number, toolCallCount: number): ModelTurnResult['stopReason'] {
  if (usage.outputTokens >= maxTokens) return 'max_tokens';
  return toolCallCount > 0 ? 'tool_use' : 'end_turn';
}

/** The first alternative whose condition holds, else the fallback; a plain turn is its own. */
export function chooseAlternative(turn: ScriptTurn, view: ScriptView) {
  const alternatives = turn.alternatives;
  const chosen: ScriptAlternative = alternatives
    ? // The schema guarantees a fallback exists, so the last `??` never applies.
      (alternatives.find((alternative) => alternative.when && holds(alternative.when, view)) ??
      alternatives.find((alternative) => !alternative.when) ??
      alternatives[0])
    : turn;
  return { text: chosen.text ?? '', toolCalls: chosen.toolCalls ?? [], usage: chosen.usage, delayMs: chosen.delayMs };
}

/** Case-insensitive substring tests; every field given must hold. */
function holds(condition: ScriptCondition, view: ScriptView): boolean {
  const includes = (haystack: string, needle: string) => haystack.toLowerCase().includes(needle.toLowerCase());
  if (condition.lastUserIncludes !== undefined && !includes(view.lastUser, condition.lastUserIncludes)) return false;
  if (condition.lastToolResultIncludes !== undefined && !includes(lastToolResult(view), condition.lastToolResultIncludes)) return false;
  if (condition.hasTool !== undefined && !view.tools.includes(condition.hasTool)) return false;
  if (condition.systemIncludes !== undefined && !includes(view.system ?? '', condition.systemIncludes)) return false;
  return true;
}

/** The caller heartbeats meanwhile (`withHeartbeat`), which is what lets a cancellation arrive. */
async function waitCancellably(delayMs: number, call: CallContext): Promise<void> {
  try {
    await sleep(delayMs, undefined, call.signal ? { signal: call.signal } : undefined);
  } catch (error) {
    throwIfCancelled(call);
    throw error;
  }
}

/** A deterministic stand-in for token counts: about four characters a token. */
function estimateUsage(input: ModelTurnInput, text: string, toolCalls: { input: unknown }[] = []): TokenUsage {
  const inputChars = input.system.length + input.messages.reduce((sum, message) => sum + messageLength(message), 0);
  const outputChars = text.length + toolCalls.reduce((sum, toolCall) => sum + JSON.stringify(toolCall.input ?? null).length, 0);
  return { inputTokens: Math.ceil(inputChars / 4), outputTokens: Math.ceil(outputChars / 4) };
}

function messageLength(message: ChatMessage): number {
  if (message.role === 'tool') return message.results.reduce((sum, result) => sum + result.content.length, 0);
  if (message.role === 'user') return message.text.length;
  return message.text.length + JSON.stringify(message.toolCalls).length;
}

/** A deterministic summary: how many turns and which tools, and the last line of each of the last three results. */
function compactionSummary(messages: ChatMessage[]): string {
  const calls = new Map<string, number>();
  let turns = 0;
  const lastLines: string[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') {
      turns += 1;
      for (const call of message.toolCalls) calls.set(call.name, (calls.get(call.name) ?? 0) + 1);
    } else if (message.role === 'tool') {
      for (const result of message.results) lastLines.push(result.content.trim().split('\n').pop()?.slice(0, 200) ?? '');
    } else if (message.compacted) turns += message.compacted.assistantTurns;
  }
  const tools = [...calls].map(([name, count]) => `${name} ×${count}`).join(', ') || 'none';
  return [`Scripted summary: ${turns} turns so far; tools called: ${tools}.`, ...lastLines.slice(-3).map((line) => `- ${line}`)].join('\n');
}
