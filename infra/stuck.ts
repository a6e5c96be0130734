import { type Client } from '@temporalio/client';
import {
  agentRunWorkflowType,
  planWorkflowType,
  resendWorkflowType,
  boardWorkflowType,
  shipUnitWorkflowType,
  threadWorkflowType,
} from '../workflows/contracts';
import { SwitchboardKind } from '../workflows/search-attributes';

/** A workflow whose current workflow task keeps failing (a payload too large, a bug): it makes no progress. */
export interface StuckWorkflow {
  workflowId: string;
  kind: string;
  /** How many times its pending workflow task has been tried. */
  attempts: number;
  /** Why its last workflow task failed, from its history (the failure's message). */
  reason?: string;
}

/** A workflow task tried this often without completing counts as stuck (the server retries it forever). */
export const STUCK_AFTER_ATTEMPTS = 3;

/** Every kind of ours, by workflow type: a workflow stuck in its first task never upserted its `SwitchboardKind`. */
const KIND_OF_TYPE: Record<string, string> = {
  [threadWorkflowType.name]: 'thread',
  [agentRunWorkflowType.name]: 'run',
  [shipUnitWorkflowType.name]: 'unit',
  [planWorkflowType.name]: 'plan',
  [resendWorkflowType.name]: 'resend',
  [boardWorkflowType.name]: 'board',
};

/** The kinds `/healthz`, the metric and `switchboard stuck` all look at, so they name the same set. */
export const STUCK_KINDS = ['run', 'unit', 'thread', 'plan', 'resend', 'board'] as const;

/**
 * Our open workflows (threads, runs, units, plans, resends) whose pending workflow task has
 * failed `STUCK_AFTER_ATTEMPTS` times or more, found by their `SwitchboardKind` or, for one
 * stuck before its first task completed, by their workflow type. Temporal keeps such a workflow
 * `Running`, so only describing it tells; at most `limit` open workflows are examined.
 */
export async function findStuck(client: Client, options: { kinds?: readonly string[]; limit?: number } = {}): Promise<StuckWorkflow[]> {
  const kinds = options.kinds ?? STUCK_KINDS;
  const quoted = (values: readonly string[]) => values.map((value) => `"${value.replace(/["\\]/g, '')}"`).join(', ');
  const types = Object.entries(KIND_OF_TYPE)
    .filter(([, kind]) => kinds.includes(kind))
    .map(([type]) => type);
  const query = `ExecutionStatus = "Running" AND (SwitchboardKind IN (${quoted(kinds)})${types.length ? ` OR WorkflowType IN (${quoted(types)})` : ''})`;
  const limit = options.limit ?? 500;
  const stuck: StuckWorkflow[] = [];
  let seen = 0;
  for await (const execution of client.workflow.list({ query })) {
    if (++seen > limit) break;
    const handle = client.workflow.getHandle(execution.workflowId, execution.runId);
    const description = await handle.describe().catch(() => undefined);
    const attempts = description?.raw.pendingWorkflowTask?.attempt ?? 0;
    if (attempts >= STUCK_AFTER_ATTEMPTS) {
      const kind = execution.typedSearchAttributes.get(SwitchboardKind) ?? KIND_OF_TYPE[execution.type] ?? execution.type;
      const reason = await lastTaskFailure(client, execution.workflowId, execution.runId);
      stuck.push({ workflowId: execution.workflowId, kind, attempts, ...(reason ? { reason } : {}) });
    }
  }
  return stuck;
}

/** The message of the newest failed workflow task in a run's history (read newest first, one page). */
async function lastTaskFailure(client: Client, workflowId: string, runId: string): Promise<string | undefined> {
  try {
    const page = await client.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: client.options.namespace,
      execution: { workflowId, runId },
      maximumPageSize: 50,
    });
    const failed = page.history?.events?.find((event) => event.workflowTaskFailedEventAttributes);
    return failed?.workflowTaskFailedEventAttributes?.failure?.message ?? undefined;
  } catch {
    return undefined;
  }
}

/** `findStuck` at most once per `ttlMs` (for /healthz, which may be polled often). */
export function cachedStuck(client: Client, ttlMs = 30_000): () => Promise<StuckWorkflow[]> {
  let last: { at: number; value: Promise<StuckWorkflow[]> } | undefined;
  return () => {
    if (!last || Date.now() - last.at > ttlMs) last = { at: Date.now(), value: findStuck(client).catch(() => []) };
    return last.value;
  };
}

/** One stuck workflow as a line: kind, attempts, id and why. */
export function formatStuck(entry: StuckWorkflow): string {
  return `${entry.kind.padEnd(6)} ${String(entry.attempts).padStart(5)} attempts  ${entry.workflowId}${entry.reason ? `  (${entry.reason})` : ''}`;
}
