import { z } from 'zod';

const usd = z.number().nonnegative();

/** One cap entry: USD a day (UTC) and USD per run, either or both. */
export const SpendCapEntrySchema = z
  .object({
    dailyUsd: usd.optional().describe('USD a calendar day (UTC); a start once it is spent is refused until the next day.'),
    runUsd: usd.optional().describe("USD per run: the run's money bound, ended like its time budget (closing summary)."),
  })
  .strict();

const byId = z.record(z.string().min(1), SpendCapEntrySchema).default({});

/**
 * Spend caps in money, by who asks, where, on what and with which agent. A key is an id
 * (person `U0123`, Slack channel `C0456`, repository `acme/app`, agent `explore`) or `*`, which
 * applies to each one on its own (every person their own daily cap); an id's fields win over
 * `*`'s. Spend is summed from Temporal (the runs' records and `status` queries), never a second
 * store. Docs: docs/runs.md "Spend caps".
 */
export const SpendConfigSchema = z
  .object({
    people: byId,
    channels: byId,
    repos: byId,
    agents: byId,
  })
  .strict();

export type SpendConfig = z.output<typeof SpendConfigSchema>;
export type SpendCapEntry = z.output<typeof SpendCapEntrySchema>;

/** Whether the section names any cap at all (an empty one checks nothing, as before caps existed). */
export function hasCaps(spend: SpendConfig | undefined): boolean {
  return spend !== undefined && Object.values(spend).some((section) => Object.keys(section).length > 0);
}
