import { MAX_BREAKPOINTS, planBreakpoints } from './cache-breakpoints';
import { toAnthropicRequest } from './anthropic-mapping';
import type { ChatMessage } from '../../workflows/contracts/model';
import { sampleInput } from './test-support';

type Marked = { cache_control?: { type: string; ttl?: string } };

/** Where a request's breakpoints are: `system`, `tool:<name>`, or `m<message>.b<block>`. */
function breakpointsOf(body: ReturnType<typeof toAnthropicRequest>): string[] {
  const found: string[] = [];
  body.tools?.forEach((tool) => (tool as Marked).cache_control && found.push(`tool:${(tool as { name: string }).name}`));
  (body.system as Marked[] | undefined)?.forEach((block) => block.cache_control && found.push('system'));
  body.messages.forEach((message, m) =>
    (message.content as Marked[]).forEach((block, b) => block.cache_control && found.push(`m${m}.b${b}`)),
  );
  return found;
}

describe('cache breakpoints', () => {
  it('marks tools + system, the previous write and the stable prefix; never more than four', () => {
    expect(planBreakpoints({ stable: 5, previous: 3 }, 7)).toEqual({ prefix: true, messages: [3, 5] });
    expect(planBreakpoints({ stable: 7, previous: 7 }, 7)).toEqual({ prefix: true, messages: [7] });
    expect(planBreakpoints({ stable: 0 }, 7)).toEqual({ prefix: true, messages: [] });
    // A compaction keeps the task (1) but still reads at the previous write (5).
    expect(planBreakpoints({ stable: 1, previous: 5 }, 8, 'compaction')).toEqual({ prefix: true, messages: [1, 5] });
    // Out-of-range counts are clamped to the conversation.
    expect(planBreakpoints({ stable: 40, previous: 30 }, 9)).toEqual({ prefix: true, messages: [9] });
    const plan = planBreakpoints({ stable: 5, previous: 3 }, 7);
    expect(Number(plan.prefix) + plan.messages.length).toBeLessThanOrEqual(MAX_BREAKPOINTS);
  });

  it('without a hint: the system prompt and the last block, as before; a purpose turn without one writes nothing', () => {
    expect(planBreakpoints(undefined, 3)).toEqual({ prefix: true, messages: [3] });
    expect(planBreakpoints(undefined, 3, 'compaction')).toEqual({ prefix: false, messages: [] });
  });

  it('on the wire: the last block of the last assistant message when the newest result will be cut, however many calls the turn made', () => {
    const calls = Array.from({ length: 12 }, (_, k) => ({ id: `t${k}`, name: 'bash', input: { command: `echo ${k}` } }));
    const messages: ChatMessage[] = [
      { role: 'user', text: 'task' },
      { role: 'assistant', text: 'first', toolCalls: [calls[0]] },
      { role: 'tool', results: [{ callId: 't0', name: 'bash', content: 'ok' }] },
      { role: 'assistant', text: 'twelve at once', toolCalls: calls },
      { role: 'tool', results: calls.map((c) => ({ callId: c.id, name: 'bash', content: 'z'.repeat(3_000) })) },
      { role: 'user', text: '(steer) and the docs' },
    ];
    const body = toAnthropicRequest('claude-sonnet-4-6', {
      ...sampleInput('anthropic:claude-sonnet-4-6'),
      messages,
      cache: { stable: 4, previous: 3 },
    });
    // The previous write (the first result, m2.b0) is read exactly although the newest turn added 25 blocks;
    // the prefix is written through the last tool_use (m3.b12); the newest results (to be cut) are not.
    expect(breakpointsOf(body)).toEqual(['system', 'm2.b0', 'm3.b12']);
    expect((body.messages[3].content as Marked[])[12].cache_control).toEqual({ type: 'ephemeral' });
  });

  it('with no system prompt, the last tool ends the prefix', () => {
    const input = { ...sampleInput('anthropic:claude-sonnet-4-6', { cacheTtl: '1h' }), system: '', cache: { stable: 1 } };
    input.messages = [{ role: 'user', text: 'hi' }];
    const body = toAnthropicRequest('claude-sonnet-4-6', input);
    expect(breakpointsOf(body)).toEqual(['tool:bash', 'm0.b0']);
    expect((body.tools![0] as Marked).cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
  });
});
