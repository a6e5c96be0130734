import { z } from 'zod';

const usd = z.number().nonnegative();

/** One cap entry: USD a day (UTC) and USD per run, either or both. */
export const SpendCapEntrySchema = z
  .object({
    dailyUsd: usd.optional().describe('USD a calendar day (UTC); a start once it is spent or reserved is refused until the next day.'),
    runUsd: usd.optional().describe("USD per run: the run's money bound, ended like its time budget (closing summary)."),
  })
  .strict();

const byId = z.record(z.string().min(1), SpendCapEntrySchema).default({});

/**
 * What a start reserves against the daily caps it falls under, before it spends (docs/models.md
 * "Reservations"): a ship unit a round's allowance at each round, a run its money bound (at most
 * `runUsd` when set). The ledger releases a reservation when its holder settles, and looks every
 * `sweepSeconds` for holders that ended without settling (terminated, reset away).
 */
export const SpendReserveSchema = z
  .object({
    unitRoundUsd: usd
      .optional()
      .describe(
        'USD a ship unit reserves for each round (its coding and review runs); the next round is funded only if what it spent plus this fits. Default 1.',
      ),
    runUsd: usd
      .optional()
      .describe("At most this is reserved for a run, and it is then the run's money bound; unset: the run reserves its whole bound."),
    sweepSeconds: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('How often the ledger looks for reservations whose holder has closed without releasing them. Default 60.'),
  })
  .strict();

/**
 * Spend caps in money, by who asks, where, on what and with which agent. A key is an id
 * (person `U0123`, Slack channel `C0456`, repository `acme/app`, agent `explore`) or `*`, which
 * applies to each one on its own (every person their own daily cap); an id's fields win over
 * `*`'s. Spend is summed from Temporal (the runs' records and `status` queries), never a second
 * store; money reserved for work in progress lives in the ledger workflow. Docs: docs/runs.md
 * "Spend caps", docs/models.md "Reservations".
 */
export const SpendConfigSchema = z
  .object({
    people: byId,
    channels: byId,
    repos: byId,
    agents: byId,
    reserve: SpendReserveSchema.optional(),
  })
  .strict();

export type SpendConfig = z.output<typeof SpendConfigSchema>;
export type SpendCapEntry = z.output<typeof SpendCapEntrySchema>;
export type SpendReserveConfig = z.output<typeof SpendReserveSchema>;

/** Whether the section names any cap at all (an empty one checks nothing, as before caps existed). */
export function hasCaps(spend: SpendConfig | undefined): boolean {
  return (
    spend !== undefined && [spend.people, spend.channels, spend.repos, spend.agents].some((section) => Object.keys(section).length > 0)
  );
}
