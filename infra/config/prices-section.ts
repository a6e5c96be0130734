import { z } from 'zod';

const perMillion = z.number().nonnegative();
const multiplier = z.number().nonnegative();

/** USD per million tokens of each kind, for one model (or a family, by a prefix ending in `*`). */
export const ModelPriceSchema = z
  .object({
    input: perMillion.describe('fresh input tokens'),
    output: perMillion.describe('output tokens'),
    /** Tokens read from the provider's prompt cache (default: the provider's multiplier × input). */
    cacheRead: perMillion.optional(),
    /** Tokens written to the cache with the 5-minute lifetime (default: the provider's multiplier × input). */
    cacheWrite: perMillion.optional(),
    /** Tokens written to the cache with the 1-hour lifetime (default: the provider's multiplier × input). */
    cacheWrite1h: perMillion.optional(),
  })
  .strict();

/** A provider's cache prices as multiples of a model's input price, for models whose entry names none. */
export const CacheMultipliersSchema = z
  .object({
    read: multiplier.optional(),
    write5m: multiplier.optional(),
    write1h: multiplier.optional(),
  })
  .strict();

/**
 * The providers' published rules: Anthropic reads at 0.1×, writes at 1.25× (5 minutes) and 2×
 * (1 hour); OpenAI's automatic cache has no write surcharge and reads at a discount that depends
 * on the model (0.5× is the smallest discount; set `cacheRead` per model for newer ones).
 */
export const DEFAULT_CACHE_MULTIPLIERS: Readonly<Record<string, Required<z.infer<typeof CacheMultipliersSchema>>>> = {
  anthropic: { read: 0.1, write5m: 1.25, write1h: 2 },
  openai: { read: 0.5, write5m: 1, write1h: 1 },
};

/**
 * The price table: what each run costs is computed from it when the run's turns and searches
 * happen, and carried in the run's record. A model with no price counts its tokens but no
 * cost, and the record names it as unpriced.
 */
export const PricesConfigSchema = z
  .object({
    /** By model id as a run names it (`anthropic:claude-sonnet-4-5`), or a prefix ending in `*` (`anthropic:*`); the longest match wins. */
    models: z.record(z.string().min(1), ModelPriceSchema).default({}),
    /**
     * By provider (`anthropic`, `openai`): cache reads and writes as multiples of the model's
     * input price, where a model's entry sets no cache price (over the built-in defaults).
     */
    cache: z.record(z.string().min(1), CacheMultipliersSchema).default({}),
    /** USD per search, by provider (`brave`, `tavily`, `searxng`), where the provider charges. */
    search: z.partialRecord(z.enum(['brave', 'tavily', 'searxng']), z.number().nonnegative()).default({}),
  })
  .strict();

export type PricesConfig = z.infer<typeof PricesConfigSchema>;
export type ModelPrice = z.infer<typeof ModelPriceSchema>;
export type CacheMultipliers = z.infer<typeof CacheMultipliersSchema>;
