import { DEFAULT_CACHE_MULTIPLIERS, type CacheMultipliers, type ModelPrice } from '../../infra/config/prices-section';
import type { TokenUsage } from '../../workflows/contracts/model';

/** The price table the model activity prices turns by (`prices.models` and `prices.cache`). */
export interface PriceTable {
  models: Readonly<Record<string, ModelPrice>>;
  /** Per provider, cache kinds as multiples of the input price (over DEFAULT_CACHE_MULTIPLIERS). */
  cache?: Readonly<Record<string, CacheMultipliers>>;
}

/** A turn's cost, and what the same tokens would have cost with no prompt cache. */
export interface TurnPrice {
  usd: number;
  withoutCacheUsd: number;
}

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

/**
 * USD per million tokens of each cache kind for a model: the model's own entry, else its
 * provider's multiplier (configured, else the provider's published rule) × the input price,
 * else the input price (a provider we know no rule for).
 */
export function cachePrices(table: PriceTable, model: string, price: ModelPrice): { read: number; write5m: number; write1h: number } {
  const provider = model.includes(':') ? model.slice(0, model.indexOf(':')) : '';
  const known: CacheMultipliers = DEFAULT_CACHE_MULTIPLIERS[provider] ?? {};
  const rule = { ...known, ...table.cache?.[provider] };
  return {
    read: price.cacheRead ?? price.input * (rule.read ?? 1),
    write5m: price.cacheWrite ?? price.input * (rule.write5m ?? 1),
    write1h: price.cacheWrite1h ?? price.input * (rule.write1h ?? 1),
  };
}

/**
 * A turn's cost in USD (rounded to a millionth of a dollar), or undefined when the model has no
 * price: fresh input, output, cache reads, and cache writes by lifetime, each at its price. The
 * price without cache counts every input token (fresh, read or written) at the input price.
 */
export function turnPrice(table: PriceTable, model: string, usage: TokenUsage): TurnPrice | undefined {
  const price = priceFor(table.models, model);
  if (!price) return undefined;
  const cache = cachePrices(table, model, price);
  const read = usage.cacheReadTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const written1h = Math.min(written, usage.cacheWrite1hTokens ?? 0);
  const micro =
    usage.inputTokens * price.input +
    usage.outputTokens * price.output +
    read * cache.read +
    (written - written1h) * cache.write5m +
    written1h * cache.write1h;
  const withoutCache = (usage.inputTokens + read + written) * price.input + usage.outputTokens * price.output;
  return { usd: roundUsd(micro / 1_000_000), withoutCacheUsd: roundUsd(withoutCache / 1_000_000) };
}

/** Sums of dollars stay exact to a millionth (no 0.30000000000000004 in a record). */
export function roundUsd(value: number): number {
  return Math.round(value * 1_000_000) / 1_000_000;
}
