import { type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { runStatusQuery, type RunCost, type RunRecord, type TokenTotals } from '../workflows/contracts';
import { Repo, Requester, Thread } from '../workflows/search-attributes';
import { visibilityQuery } from './visibility';

/** One run's spend, from its record (ended) or its `status` query (running). */
export interface RunSpend {
  runId: string;
  person: string;
  agent: string;
  repo?: string;
  thread: string;
  tokens: TokenTotals;
  cost: RunCost;
  running: boolean;
}

/** At most this many records are read at once. */
const READ_CONCURRENCY = 8;

/** Closed runs' spends by execution: a record never changes, so a long-lived reader keeps what it read. */
export type SpendMemo = Map<string, RunSpend>;

/** This deployment's runs (its task queue) started since `since`, narrowed by `where` (a visibility clause). */
export function runsQuery(taskQueue: string, since: Date, where?: string): string {
  return `${visibilityQuery({ SwitchboardKind: 'run', TaskQueue: taskQueue })} AND StartTime >= "${since.toISOString()}"${where ? ` AND (${where})` : ''}`;
}

/**
 * The spend of every run a visibility query lists: a finished one by its record, a running one
 * by its `status` query. A run that continued as new is counted once, by its last execution (the
 * carry holds the totals). Runs that ended without a record are counted apart. Usage is summed
 * from Temporal alone: no second store.
 */
export async function readSpends(client: Client, query: string, memo?: SpendMemo): Promise<{ spends: RunSpend[]; unrecorded: number }> {
  const executions: WorkflowExecutionInfo[] = [];
  for await (const execution of client.workflow.list({ query })) {
    if (execution.status.name !== 'CONTINUED_AS_NEW') executions.push(execution);
  }
  const spends: RunSpend[] = [];
  let unrecorded = 0;
  for (let index = 0; index < executions.length; index += READ_CONCURRENCY) {
    const batch = await Promise.all(
      executions.slice(index, index + READ_CONCURRENCY).map((execution) => readSpend(client, execution, memo)),
    );
    for (const spend of batch) {
      if (spend) spends.push(spend);
      else unrecorded += 1;
    }
  }
  return { spends, unrecorded };
}

async function readSpend(client: Client, execution: WorkflowExecutionInfo, memo?: SpendMemo): Promise<RunSpend | undefined> {
  const key = `${execution.workflowId}/${execution.runId}`;
  const known = memo?.get(key);
  if (known) return known;
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
  const spend: RunSpend = {
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
  memo?.set(key, spend);
  return spend;
}
