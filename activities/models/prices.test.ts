import { priceFor, roundUsd, turnCost } from './prices';

describe('model prices', () => {
  const prices = {
    'anthropic:*': { input: 3, output: 15 },
    'anthropic:claude-haiku*': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
    'openai:gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  };

  it('takes the exact id, else the longest prefix', () => {
    expect(priceFor(prices, 'openai:gpt-5')).toBe(prices['openai:gpt-5']);
    expect(priceFor(prices, 'openai:gpt-5-mini')).toBeUndefined();
    expect(priceFor(prices, 'anthropic:claude-haiku-4-5')).toBe(prices['anthropic:claude-haiku*']);
    expect(priceFor(prices, 'anthropic:claude-opus-4-1')).toBe(prices['anthropic:*']);
  });

  it('prices each kind of token per million, cache kinds at the input price unless set', () => {
    const usage = { inputTokens: 1_000, outputTokens: 2_000, cacheReadTokens: 10_000, cacheWriteTokens: 4_000 };
    // 1000*1 + 2000*5 + 10000*0.1 + 4000*1.25 = 17000 micro-dollars
    expect(turnCost(prices, 'anthropic:claude-haiku-4-5', usage)).toBe(0.017);
    // 1000*3 + 2000*15 + 10000*3 + 4000*3 = 75000
    expect(turnCost(prices, 'anthropic:claude-opus-4-1', usage)).toBe(0.075);
    expect(turnCost(prices, 'scripted:kit/x.yaml', usage)).toBeUndefined();
    expect(roundUsd(0.1 + 0.2)).toBe(0.3);
  });
});
