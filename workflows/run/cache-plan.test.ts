import type { ChatMessage, ToolCall } from '../contracts/model';
import { cacheHint, chooseCacheTtl, latestCalls, LONG_STEP_MS } from './cache-plan';
import { OLD_RESULT_MAX_CHARS, stablePrefixLength } from './context-window';

const call = (k: number, command = 'ls'): ChatMessage => ({
  role: 'assistant',
  text: `turn ${k}`,
  toolCalls: [{ id: `c${k}`, name: 'bash', input: { command } }],
});
const result = (k: number, chars: number): ChatMessage => ({
  role: 'tool',
  results: [{ callId: `c${k}`, name: 'bash', content: 'r'.repeat(chars) }],
});
const task: ChatMessage = { role: 'user', text: 'task' };

describe('the cache plan', () => {
  it('keeps the whole conversation stable unless the newest results will be cut by the next request', () => {
    expect(stablePrefixLength([task])).toBe(1);
    expect(stablePrefixLength([task, call(1), result(1, OLD_RESULT_MAX_CHARS)])).toBe(3);
    // The newest result is over the limit: the next request cuts it to head and tail, so the prefix ends before it.
    expect(stablePrefixLength([task, call(1), result(1, 100), call(2), result(2, OLD_RESULT_MAX_CHARS + 1)])).toBe(4);
    // A steer after it does not move the cut.
    expect(stablePrefixLength([task, call(1), result(1, 5_000), { role: 'user', text: '(steer) v2' }])).toBe(2);
  });

  it('writes the stable prefix, reads where the last request wrote, and a compaction keeps only what survives it', () => {
    const messages = [task, call(1), result(1, 100), call(2), result(2, 9_000)];
    expect(cacheHint(messages, undefined)).toEqual({ stable: 4 });
    expect(cacheHint(messages, 3)).toEqual({ stable: 4, previous: 3 });
    // A compaction keeps the task: it still reads at the previous write (the breakpoint plan marks both).
    expect(cacheHint([...messages, { role: 'user', text: 'summarise' }], 4, 1)).toEqual({ stable: 1, previous: 4 });
    // A previous write past the conversation (it was compacted since) is not read.
    expect(cacheHint([task], 4)).toEqual({ stable: 1 });
  });

  it('chooses 1 hour only when the agent allows it and the run is about to wait', () => {
    const quick: ToolCall[] = [{ id: '1', name: 'bash', input: { command: 'npm test' } }];
    const base = { ceiling: '1h' as const, childrenPending: false, lastCalls: quick, lastStepMs: 2_000 };
    expect(chooseCacheTtl(base)).toBe('5m');
    expect(chooseCacheTtl({ ...base, childrenPending: true })).toBe('1h');
    expect(chooseCacheTtl({ ...base, lastStepMs: LONG_STEP_MS })).toBe('1h');
    expect(chooseCacheTtl({ ...base, lastCalls: [{ id: '2', name: 'bash', input: { command: "setsid -f sh -c 'make'" } }] })).toBe('1h');
    expect(chooseCacheTtl({ ...base, lastCalls: [{ id: '3', name: 'wait_for_job', input: { exitFile: '/tmp/job.exit' } }] })).toBe('1h');
    // An agent held to 5 minutes never writes for an hour.
    expect(chooseCacheTtl({ ...base, ceiling: '5m', childrenPending: true })).toBe('5m');
  });

  it("reads the latest turn's calls from the conversation", () => {
    expect(latestCalls([task])).toEqual([]);
    expect(latestCalls([task, call(1, 'a'), result(1, 1), call(2, 'b'), result(2, 1)])[0].input).toEqual({ command: 'b' });
  });
});
