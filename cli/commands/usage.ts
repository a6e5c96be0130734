import { type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { type Command } from 'commander';
import { formatUsd } from '../../infra/run-format';
import { visibilityQuery } from '../../infra/visibility';
import { runStatusQuery, type RunRecord, type TokenTotals } from '../../workflows/contracts';
import { Repo, Requester, Thread } from '../../workflows/search-attributes';
import { withCliClient } from '../temporal-client';
import { parseSince, USAGE_GROUPS, usageTotals, type RunSpend, type UsageGroup } from '../usage-totals';

/** At most this many records are read at once. */
const READ_CONCURRENCY = 8;

/** `switchboard usage [--since 7d] [--by person,agent]`: tokens and cost from visibility and the runs' records. */
export function registerUsageCommand(program: Command): void {
  program
    .command('usage')
    .description(
      "tokens and cost of the runs started in a window, totalled per person, agent, repo, thread, unit or plan (from Temporal visibility and the runs' records)",
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
        const { spends, unrecorded } = await readSpends(client, since, taskQueue);
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
            `  ${'runs'.padStart(5)} ${'input'.padStart(10)} ${'output'.padStart(9)} ${'cache rd'.padStart(10)} ${'cache wr'.padStart(9)} ${'cost'.padStart(10)}  ${group}`,
          );
          for (const row of [...rows, total]) {
            lines.push(
              `  ${String(row.runs).padStart(5)} ${String(row.tokens.input).padStart(10)} ${String(row.tokens.output).padStart(9)} ${String(row.tokens.cacheRead).padStart(10)} ${String(row.tokens.cacheWrite).padStart(9)} ${formatUsd(row.usd).padStart(10)}  ${row.key}${row.unpriced.length ? ` (unpriced: ${row.unpriced.join(', ')})` : ''}`,
            );
          }
        }
        console.log(lines.join('\n'));
      });
    });
}

/**
 * Every run of this deployment (its task queue) started since `since`: a finished one by its record, a running one by its
 * `status` query. A run that continued as new is counted once, by its last execution (the
 * carry holds the totals). Runs that ended without a record are counted apart.
 */
export async function readSpends(client: Client, since: Date, taskQueue: string): Promise<{ spends: RunSpend[]; unrecorded: number }> {
  // This deployment's runs: every run workflow is on the configured task queue.
  const query = `${visibilityQuery({ SwitchboardKind: 'run', TaskQueue: taskQueue })} AND StartTime >= "${since.toISOString()}"`;
  const executions: WorkflowExecutionInfo[] = [];
  for await (const execution of client.workflow.list({ query })) {
    if (execution.status.name !== 'CONTINUED_AS_NEW') executions.push(execution);
  }
  const spends: RunSpend[] = [];
  let unrecorded = 0;
  for (let index = 0; index < executions.length; index += READ_CONCURRENCY) {
    const batch = await Promise.all(executions.slice(index, index + READ_CONCURRENCY).map((execution) => readSpend(client, execution)));
    for (const spend of batch) {
      if (spend) spends.push(spend);
      else unrecorded += 1;
    }
  }
  return { spends, unrecorded };
}

async function readSpend(client: Client, execution: WorkflowExecutionInfo): Promise<RunSpend | undefined> {
  const attributes = execution.typedSearchAttributes;
  const repo = attributes.get(Repo);
  const handle = client.workflow.getHandle(execution.workflowId, execution.runId);
  if (execution.status.name === 'RUNNING') {
    const status = await handle.query(runStatusQuery).catch(() => undefined);
    if (!status) return undefined;
    return {
      runId: execution.workflowId,
      person: attributes.get(Requester) ?? '(unknown)',
      agent: status.agent,
      thread: attributes.get(Thread) ?? '(unknown)',
      ...(repo ? { repo } : {}),
      tokens: status.tokens,
      cost: status.cost,
      running: true,
    };
  }
  if (execution.status.name !== 'COMPLETED') return undefined;
  const record = (await handle.result()) as RunRecord;
  return {
    runId: record.runId,
    person: record.requester.id,
    agent: record.profile.agent,
    thread: record.threadId,
    ...(repo ? { repo } : {}),
    // Records from before cache kinds and prices were kept.
    tokens: { ...{ cacheRead: 0, cacheWrite: 0 }, ...(record.tokens as Partial<TokenTotals>) } as TokenTotals,
    cost: record.cost ?? { usd: 0, searches: 0, searchUsd: 0, unpriced: [] },
    running: false,
  };
}
