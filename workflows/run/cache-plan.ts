import type { CacheHint, ChatMessage, ToolCall } from '../contracts/model';
import { stablePrefixLength } from './context-window';

/**
 * The prompt-cache plan of a run's requests, as pure functions: where each request writes (the
 * longest prefix the next request keeps, context-window.ts `stablePrefixLength`) and reads
 * (where the previous one wrote), and which lifetime it writes with.
 */

export type CacheTtl = '5m' | '1h';

/** A step (the tool phase between two model turns) at least this long predicts one longer than 5 minutes next. */
export const LONG_STEP_MS = 4 * 60_000;

/** A detached job: the explore prompt's recipe and its common variants. */
const DETACHES = /\b(setsid|nohup)\b/;

export interface TtlSignals {
  /** The profile's `cacheTtl`: the longest lifetime this agent may write with. */
  ceiling: CacheTtl;
  /** Background `task` children still running: the run may end its turn to wait for them. */
  childrenPending: boolean;
  /** The tool calls of the model's latest turn. */
  lastCalls: ToolCall[];
  /** How long the last tool phase took (workflow time), when there was one. */
  lastStepMs?: number;
}

/**
 * The lifetime one request writes with, from what the run is about to do. A 1-hour write costs
 * 2× the input price against 1.25× for 5 minutes, and a miss after an entry expired costs the
 * whole prefix again, so: 1 hour when the next request is likely more than 5 minutes away — a
 * background child is running, the latest turn started a detached job (`setsid`, `nohup`) or
 * waited for one (`wait_for_job`), or the last step took 4 minutes or more — and only when the
 * agent allows it (`cacheTtl: 1h`); 5 minutes otherwise.
 */
export function chooseCacheTtl(signals: TtlSignals): CacheTtl {
  if (signals.ceiling !== '1h') return '5m';
  if (signals.childrenPending) return '1h';
  if (signals.lastCalls.some(waitsLong)) return '1h';
  if ((signals.lastStepMs ?? 0) >= LONG_STEP_MS) return '1h';
  return '5m';
}

function waitsLong(call: ToolCall): boolean {
  if (call.name === 'wait_for_job') return true;
  const command = (call.input as { command?: unknown } | null)?.command;
  return call.name === 'bash' && typeof command === 'string' && DETACHES.test(command);
}

/** The tool calls of the latest assistant message, if the conversation ends with its results (or later notes). */
export function latestCalls(messages: ChatMessage[]): ToolCall[] {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message.role === 'assistant') return message.toolCalls;
  }
  return [];
}

/**
 * The hint for a request with these messages: write the stable prefix, read where the last
 * request wrote. `keep`: how many leading messages survive what this request is for (a
 * compaction keeps only the task; a closing summary ends the run, so it writes nothing new).
 */
export function cacheHint(messages: ChatMessage[], previous: number | undefined, keep?: number): CacheHint {
  const stable = Math.min(stablePrefixLength(messages), keep ?? messages.length);
  const read = previous !== undefined && previous > 0 && previous <= messages.length ? previous : undefined;
  return { stable, ...(read !== undefined ? { previous: read } : {}) };
}
