import { cachePrices, priceFor, roundUsd, turnPrice } from './prices';

describe('model prices', () => {
  const models = {
    'anthropic:*': { input: 3, output: 15 },
    'anthropic:claude-haiku*': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25, cacheWrite1h: 2 },
    'openai:gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
    'openai:gpt-4o': { input: 2.5, output: 10 },
    'scripted:*': { input: 1, output: 1 },
  };

  it('takes the exact id, else the longest prefix', () => {
    expect(priceFor(models, 'openai:gpt-5')).toBe(models['openai:gpt-5']);
    expect(priceFor(models, 'openai:gpt-5-mini')).toBeUndefined();
    expect(priceFor(models, 'anthropic:claude-haiku-4-5')).toBe(models['anthropic:claude-haiku*']);
    expect(priceFor(models, 'anthropic:claude-opus-4-1')).toBe(models['anthropic:*']);
  });

  it("prices cache kinds by the model's entry, else the provider's rule, else the input price", () => {
    // Anthropic's published rule: reads 0.1×, 5-minute writes 1.25×, 1-hour writes 2×.
    const opus = cachePrices({ models }, 'anthropic:claude-opus-4-1', models['anthropic:*']);
    expect(opus).toEqual({ read: expect.closeTo(0.3, 9), write5m: 3.75, write1h: 6 });
    // OpenAI: no write surcharge; the read discount of the oldest models unless the entry names one.
    expect(cachePrices({ models }, 'openai:gpt-4o', models['openai:gpt-4o'])).toEqual({ read: 1.25, write5m: 2.5, write1h: 2.5 });
    expect(cachePrices({ models }, 'openai:gpt-5', models['openai:gpt-5']).read).toBe(0.125);
    // A configured multiplier wins over the built-in rule; a provider without a rule pays the input price.
    expect(cachePrices({ models, cache: { openai: { read: 0.25 } } }, 'openai:gpt-4o', models['openai:gpt-4o']).read).toBe(0.625);
    expect(cachePrices({ models }, 'scripted:kit/x.yaml', models['scripted:*'])).toEqual({ read: 1, write5m: 1, write1h: 1 });
  });

  it('prices each kind of token per million, 1-hour writes apart, and what no cache would have cost', () => {
    const usage = { inputTokens: 1_000, outputTokens: 2_000, cacheReadTokens: 10_000, cacheWriteTokens: 4_000, cacheWrite1hTokens: 1_000 };
    // 1000*1 + 2000*5 + 10000*0.1 + 3000*1.25 + 1000*2 = 17750 micro-dollars; without cache (1000+10000+4000)*1 + 10000 = 25000
    expect(turnPrice({ models }, 'anthropic:claude-haiku-4-5', usage)).toEqual({ usd: 0.01775, withoutCacheUsd: 0.025 });
    // 1000*3 + 2000*15 + 10000*0.3 + 3000*3.75 + 1000*6 = 53250; without: 15000*3 + 30000 = 75000
    expect(turnPrice({ models }, 'anthropic:claude-opus-4-1', usage)).toEqual({ usd: 0.05325, withoutCacheUsd: 0.075 });
    expect(turnPrice({ models }, 'other:model', usage)).toBeUndefined();
    expect(roundUsd(0.1 + 0.2)).toBe(0.3);
  });
});
