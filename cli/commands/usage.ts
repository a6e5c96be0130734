import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { type Command } from 'commander';
import { formatUsd } from '../../infra/run-format';
import { readSpends, runsQuery } from '../../infra/run-spends';
import { spendLedgerId, sweepSpendUpdate, type SpendHold } from '../../workflows/contracts';
import { withCliClient } from '../temporal-client';
import { parseSince, reservedTotals, USAGE_GROUPS, usageTotals, type UsageGroup } from '../usage-totals';

/** `switchboard usage [--since 7d] [--by person,agent]`: tokens and cost from visibility and the runs' records. */
export function registerUsageCommand(program: Command): void {
  program
    .command('usage')
    .description(
      "tokens, cost, the share served from the prompt cache and the cost without it, and MCP tool calls, of the runs started in a window, totalled per person, agent, repo, thread, unit or plan (from Temporal visibility and the runs' records); and apart, the money reserved now by work in progress (the spend ledger)",
    )
    .option('--since <span>', 'runs started since: 7d, 12h, 30m, 2w or a date', '7d')
    .option('--by <groups>', `comma-separated: ${USAGE_GROUPS.join(', ')}`, 'person,agent')
    .option('--json', 'print JSON')
    .action(async (options: { since: string; by: string; json?: boolean }) => {
      let since: Date;
      let groups: UsageGroup[];
      try {
        since = parseSince(options.since, new Date());
        groups = options.by.split(',').map((group) => group.trim()) as UsageGroup[];
        const unknown = groups.filter((group) => !USAGE_GROUPS.includes(group));
        if (unknown.length > 0 || groups.length === 0) throw new Error(`--by: expected ${USAGE_GROUPS.join(', ')}, got '${options.by}'`);
      } catch (error) {
        console.error((error as Error).message);
        process.exitCode = 1;
        return;
      }
      await withCliClient(async ({ client, taskQueue }) => {
        // This deployment's runs: every run workflow is on the configured task queue.
        const { spends, unrecorded } = await readSpends(client, runsQuery(taskQueue, since));
        const tables = Object.fromEntries(groups.map((group) => [group, usageTotals(spends, group)]));
        const holds = await reservations(client, taskQueue);
        const reserved = holds
          ? {
              totalUsd: reservedTotals(holds, 'person').total.usd,
              holds,
              by: Object.fromEntries(groups.map((group) => [group, reservedTotals(holds, group)])),
            }
          : { unknown: `the spend ledger did not answer within ${LEDGER_WAIT_MS / 1_000} s` };
        if (options.json) {
          console.log(JSON.stringify({ since: since.toISOString(), runs: spends.length, unrecorded, by: tables, reserved }, null, 2));
          return;
        }
        const lines = [
          `Runs started since ${since.toISOString()}: ${spends.length}${unrecorded ? ` (and ${unrecorded} without a record: failed, terminated or timed out)` : ''}`,
        ];
        for (const group of groups) {
          const { rows, total } = tables[group];
          lines.push(
            '',
            `by ${group}`,
            `  ${'runs'.padStart(5)} ${'input'.padStart(10)} ${'output'.padStart(9)} ${'cache rd'.padStart(10)} ${'cache wr'.padStart(9)} ${'cached'.padStart(7)} ${'cost'.padStart(10)} ${'no cache'.padStart(10)} ${'mcp'.padStart(6)}  ${group}`,
          );
          for (const row of [...rows, total]) {
            lines.push(
              `  ${String(row.runs).padStart(5)} ${String(row.tokens.input).padStart(10)} ${String(row.tokens.output).padStart(9)} ${String(row.tokens.cacheRead).padStart(10)} ${String(row.tokens.cacheWrite).padStart(9)} ${`${Math.round(row.cacheShare * 100)} %`.padStart(7)} ${formatUsd(row.usd).padStart(10)} ${formatUsd(row.withoutCacheUsd).padStart(10)} ${String(row.mcpCalls).padStart(6)}  ${row.key}${row.unpriced.length ? ` (unpriced: ${row.unpriced.join(', ')})` : ''}`,
            );
          }
        }
        lines.push('', ...reservedLines(holds, groups));
        console.log(lines.join('\n'));
      });
    });
}

/**
 * The money held now by work in progress, from the deployment's spend ledger after it has released
 * what closed work still held (a `sweep`), so what is shown is never held by closed work. No ledger: nothing is reserved.
 */
async function reservations(client: Client, taskQueue: string): Promise<SpendHold[] | undefined> {
  const swept = client.workflow
    .getHandle(spendLedgerId(taskQueue))
    .executeUpdate(sweepSpendUpdate, { args: [{ by: 'switchboard usage' }] })
    .then((state) => state.holds)
    .catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError || (error as { cause?: unknown })?.cause instanceof WorkflowNotFoundError) return [];
      throw error;
    });
  // The ledger answers through a worker: with none running, say so rather than wait.
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), LEDGER_WAIT_MS)));
  try {
    return await Promise.race([swept, late]);
  } finally {
    clearTimeout(timer);
    swept.catch(() => undefined);
  }
}

/** How long `usage` waits for the ledger's sweep. */
const LEDGER_WAIT_MS = 15_000;

function reservedLines(holds: SpendHold[] | undefined, groups: UsageGroup[]): string[] {
  if (!holds) return [`Reserved now: unknown (the spend ledger did not answer within ${LEDGER_WAIT_MS / 1_000} s: is a worker running?)`];
  const total = reservedTotals(holds, 'person').total;
  if (holds.length === 0) return ['Reserved now: nothing (no work in progress holds money against a daily spend cap).'];
  const lines = [
    `Reserved now, apart from what was spent: ${formatUsd(total.usd)} held by ${total.holders} start${total.holders === 1 ? '' : 's'} in progress`,
    `  ${'reserved'.padStart(10)}  ${'since'.padEnd(24)} holder`,
    ...holds.map(
      (hold) =>
        `  ${formatUsd(hold.usd).padStart(10)}  ${new Date(hold.since).toISOString().padEnd(24)} ${hold.holder} (${hold.scope.person}, ${hold.scope.repo ?? 'no repository'}, ${hold.scope.agent})`,
    ),
  ];
  for (const group of groups) {
    const { rows } = reservedTotals(holds, group);
    lines.push(
      '',
      `reserved by ${group}`,
      ...rows.map((row) => `  ${formatUsd(row.usd).padStart(10)} ${String(row.holders).padStart(4)}  ${row.key}`),
    );
  }
  return lines;
}
