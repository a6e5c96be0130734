import { type Command } from 'commander';
import { formatUsd } from '../../infra/run-format';
import { readSpends, runsQuery } from '../../infra/run-spends';
import { withCliClient } from '../temporal-client';
import { parseSince, USAGE_GROUPS, usageTotals, type UsageGroup } from '../usage-totals';

/** `switchboard usage [--since 7d] [--by person,agent]`: tokens and cost from visibility and the runs' records. */
export function registerUsageCommand(program: Command): void {
  program
    .command('usage')
    .description(
      "tokens, cost, the share served from the prompt cache and the cost without it, and MCP tool calls, of the runs started in a window, totalled per person, agent, repo, thread, unit or plan (from Temporal visibility and the runs' records)",
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
        if (options.json) {
          console.log(JSON.stringify({ since: since.toISOString(), runs: spends.length, unrecorded, by: tables }, null, 2));
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
        console.log(lines.join('\n'));
      });
    });
}
