import type { ChatMessage } from '../contracts/model';
import { canCompact, compactMessages, cutOlderResults, estimateTokens, OLD_RESULT_MAX_CHARS } from './context-window';

const call = (k: number): ChatMessage => ({
  role: 'assistant',
  text: `turn ${k}`,
  toolCalls: [{ id: `c${k}`, name: 'bash', input: { command: 'x' } }],
});
const result = (k: number, content: string): ChatMessage => ({ role: 'tool', results: [{ callId: `c${k}`, name: 'bash', content }] });
const long = (k: number) => `head-${k}\n${'x'.repeat(30_000)}\ntail-${k}\n[full output saved at /tmp/switchboard-output/${k}.txt]`;

describe('context window', () => {
  it('cuts every tool result but the latest to head and tail, naming where the whole text is', () => {
    const messages: ChatMessage[] = [{ role: 'user', text: 'task' }, call(1), result(1, long(1)), call(2), result(2, long(2))];
    expect(cutOlderResults(messages)).toBe(1);
    const older = messages[2] as Extract<ChatMessage, { role: 'tool' }>;
    expect(older.results[0].content.length).toBeLessThan(OLD_RESULT_MAX_CHARS);
    expect(older.results[0].content).toMatch(/^head-1/);
    expect(older.results[0].content).toContain('the full output is in /tmp/switchboard-output/1.txt');
    expect(older.results[0].content).toContain('[full output saved at /tmp/switchboard-output/1.txt]');
    expect((messages[4] as Extract<ChatMessage, { role: 'tool' }>).results[0].content).toBe(long(2));
    expect(cutOlderResults(messages)).toBe(0);
  });

  it('compacts the middle into a summary and keeps the task, steers and the latest turns', () => {
    const messages: ChatMessage[] = [
      { role: 'user', text: 'earlier' },
      { role: 'user', text: 'task' },
    ];
    for (let k = 1; k <= 6; k += 1) {
      messages.push(call(k), result(k, `out ${k}`));
      if (k === 2) messages.push({ role: 'user', text: '(steer from ada) use v2' });
    }
    expect(canCompact(messages, 2)).toBe(true);
    const compacted = compactMessages(messages, 2, 'did 4 things');
    expect(compacted.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(compacted[2]).toMatchObject({ role: 'user', compacted: { assistantTurns: 4 } });
    expect((compacted[2] as { text: string }).text).toContain('did 4 things');
    expect(compacted[3]).toEqual({ role: 'user', text: '(steer from ada) use v2' });
    expect(compacted.slice(4)).toEqual(messages.slice(-4));
    // A second compaction counts the turns the first summary stood for.
    const again = [...compacted, call(7), result(7, 'out 7'), call(8), result(8, 'out 8')];
    expect(compactMessages(again, 2, 'more')[2]).toMatchObject({ compacted: { assistantTurns: 6 } });
    expect(canCompact(compacted.slice(0, 2).concat(messages.slice(-4)), 2)).toBe(false);
  });

  it('estimates about four characters a token', () => {
    expect(estimateTokens('s'.repeat(400), [{ role: 'user', text: 'u'.repeat(400) }])).toBe(200);
  });
});
