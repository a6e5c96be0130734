import { AnthropicCache, OpenAICache, totals } from './cache-accounting';

const mark = (ttl?: '1h') => ({ cache_control: ttl ? { type: 'ephemeral', ttl } : { type: 'ephemeral' } });
/** A text block of `tokens` tokens (four characters each). */
const text = (tokens: number, tag: string, marked?: ReturnType<typeof mark>) => ({
  type: 'text',
  text: `${tag}:${'x'.repeat(tokens * 4 - tag.length - 1)}`,
  ...marked,
});
const system = (marked = true) => [text(2_000, 'system', marked ? mark() : undefined)];

describe('cache accounting by the providers’ rules', () => {
  it('writes at each breakpoint, reads the longest live entry, and prices reads 0.1×, writes 1.25× and 2×', () => {
    const cache = new AnthropicCache();
    const first = { system: system(), messages: [{ role: 'user', content: [text(1_000, 'task', mark())] }] };
    expect(cache.account(first, 0)).toEqual({ input: 3_000, read: 0, write5m: 3_000, write1h: 0, uncached: 0 });
    const second = {
      system: system(),
      messages: [
        { role: 'user', content: [text(1_000, 'task')] },
        { role: 'assistant', content: [text(500, 'answer', mark('1h'))] },
        { role: 'user', content: [text(250, 'more')] },
      ],
    };
    // Read through the task (found by the lookback from the new breakpoint), write the answer for an hour, send the rest plain.
    expect(cache.account(second, 1_000)).toEqual({ input: 3_750, read: 3_000, write5m: 0, write1h: 500, uncached: 250 });
    const run = totals([
      { input: 3_000, read: 0, write5m: 3_000, write1h: 0, uncached: 0 },
      { input: 3_750, read: 3_000, write5m: 0, write1h: 500, uncached: 250 },
    ]);
    expect(run.cacheShare).toBeCloseTo(3_000 / 6_750);
    expect(run.costVsNoCache).toBeCloseTo((3_000 * 1.25 + 3_000 * 0.1 + 500 * 2 + 250) / 6_750);
  });

  it('misses when the block the last breakpoint wrote changes (a result cut to head and tail)', () => {
    const cache = new AnthropicCache();
    const turn = (result: string) => ({
      system: system(),
      messages: [
        { role: 'user', content: [text(1_000, 'task')] },
        { role: 'assistant', content: [text(100, 'call')] },
        { role: 'user', content: [{ ...text(2_000, result), ...mark() }] },
      ],
    });
    cache.account(turn('whole'), 0);
    // Only tools + system are read back: the written prefix ended on the block that changed.
    expect(cache.account(turn('cut'), 1_000)).toMatchObject({ read: 2_000, write5m: 3_100 });
  });

  it('looks back about 20 blocks from a breakpoint, and no further', () => {
    const cache = new AnthropicCache();
    const blocks = (count: number) => Array.from({ length: count }, (_, k) => text(100, `b${k}`));
    const base = [{ role: 'user', content: [{ ...text(1_500, 'task'), ...mark() }] }];
    cache.account({ system: system(false), messages: base }, 0);
    const near = { role: 'assistant', content: [...blocks(19), { ...text(100, 'last'), ...mark() }] };
    expect(cache.account({ system: system(false), messages: [{ role: 'user', content: [text(1_500, 'task')] }, near] }, 1).read).toBe(
      3_500,
    );
    const fresh = new AnthropicCache();
    fresh.account({ system: system(false), messages: base }, 0);
    const far = { role: 'assistant', content: [...blocks(21), { ...text(100, 'last'), ...mark() }] };
    expect(fresh.account({ system: system(false), messages: [{ role: 'user', content: [text(1_500, 'task')] }, far] }, 1).read).toBe(0);
  });

  it('forgets an entry after its lifetime, and caches nothing under the minimum length', () => {
    const cache = new AnthropicCache();
    const body = { system: system(), messages: [{ role: 'user', content: [text(1_000, 'task', mark())] }] };
    cache.account(body, 0);
    expect(cache.account(body, 4 * 60_000).read).toBe(3_000);
    // Read at 4 minutes, so alive until 9: gone at 10.
    expect(cache.account(body, 10 * 60_000).read).toBe(0);
    const small = new AnthropicCache();
    const tiny = { messages: [{ role: 'user', content: [text(500, 'hi', mark())] }] };
    expect(small.account(tiny, 0)).toMatchObject({ write5m: 0, uncached: 500 });
  });

  it('OpenAI: reads the prefix shared with an earlier request, from 1,024 tokens on, in steps of 128', () => {
    const cache = new OpenAICache();
    const messages = [
      { role: 'system', content: 'y'.repeat(8_000) },
      { role: 'user', content: 'first' },
    ];
    expect(cache.account({ messages }, 0).read).toBe(0);
    const next = cache.account({ messages: [messages[0], { role: 'user', content: 'second' }] }, 1);
    expect(next.read % 128).toBe(0);
    expect(next.read).toBeGreaterThanOrEqual(1_920);
    expect(next.write5m + next.write1h).toBe(0);
  });
});
