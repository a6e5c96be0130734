import { z } from 'zod';

const perMillion = z.number().nonnegative();

/** USD per million tokens of each kind, for one model (or a family, by a prefix ending in `*`). */
export const ModelPriceSchema = z
  .object({
    input: perMillion.describe('fresh input tokens'),
    output: perMillion.describe('output tokens'),
    /** Tokens read from the provider's prompt cache (default: the input price). */
    cacheRead: perMillion.optional(),
    /** Tokens written to the prompt cache (default: the input price). */
    cacheWrite: perMillion.optional(),
  })
  .strict();

/**
 * The price table: what each run costs is computed from it when the run's turns and searches
 * happen, and carried in the run's record. A model with no price counts its tokens but no
 * cost, and the record names it as unpriced.
 */
export const PricesConfigSchema = z
  .object({
    /** By model id as a run names it (`anthropic:claude-sonnet-4-5`), or a prefix ending in `*` (`anthropic:*`); the longest match wins. */
    models: z.record(z.string().min(1), ModelPriceSchema).default({}),
    /** USD per search, by provider (`brave`, `tavily`, `searxng`), where the provider charges. */
    search: z.partialRecord(z.enum(['brave', 'tavily', 'searxng']), z.number().nonnegative()).default({}),
  })
  .strict();

export type PricesConfig = z.infer<typeof PricesConfigSchema>;
export type ModelPrice = z.infer<typeof ModelPriceSchema>;
