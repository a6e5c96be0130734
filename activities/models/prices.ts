import type { ModelPrice } from '../../infra/config/prices-section';
import type { TokenUsage } from './types';

/** The price for a model id: an exact key, else the longest `prefix*` key that matches. */
export function priceFor(prices: Readonly<Record<string, ModelPrice>>, model: string): ModelPrice | undefined {
  if (prices[model]) return prices[model];
  let best: { length: number; price: ModelPrice } | undefined;
  for (const [key, price] of Object.entries(prices)) {
    if (!key.endsWith('*')) continue;
    const prefix = key.slice(0, -1);
    if (model.startsWith(prefix) && (!best || prefix.length > best.length)) best = { length: prefix.length, price };
  }
  return best?.price;
}

/** A turn's cost in USD (rounded to a millionth of a dollar), or undefined when the model has no price. */
export function turnCost(prices: Readonly<Record<string, ModelPrice>>, model: string, usage: TokenUsage): number | undefined {
  const price = priceFor(prices, model);
  if (!price) return undefined;
  const micro =
    usage.inputTokens * price.input +
    usage.outputTokens * price.output +
    (usage.cacheReadTokens ?? 0) * (price.cacheRead ?? price.input) +
    (usage.cacheWriteTokens ?? 0) * (price.cacheWrite ?? price.input);
  return roundUsd(micro / 1_000_000);
}

/** Sums of dollars stay exact to a millionth (no 0.30000000000000004 in a record). */
export function roundUsd(value: number): number {
  return Math.round(value * 1_000_000) / 1_000_000;
}
