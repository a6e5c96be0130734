import { type Client } from '@temporalio/client';
import { SwitchboardKind } from '../workflows/search-attributes';

/** A workflow whose current workflow task keeps failing (a payload too large, a bug): it makes no progress. */
export interface StuckWorkflow {
  workflowId: string;
  kind: string;
  /** How many times its pending workflow task has been tried. */
  attempts: number;
}

/** A workflow task tried this often without completing counts as stuck (the server retries it forever). */
export const STUCK_AFTER_ATTEMPTS = 3;

/**
 * Our open workflows (runs, units, threads, plans) whose pending workflow task has failed
 * `STUCK_AFTER_ATTEMPTS` times or more. Temporal keeps such a workflow `Running`, so only
 * describing it tells; at most `limit` open workflows are examined.
 */
export async function findStuck(client: Client, options: { kinds?: string[]; limit?: number } = {}): Promise<StuckWorkflow[]> {
  const kinds = (options.kinds ?? ['run', 'unit', 'thread', 'plan']).map((kind) => `"${kind.replace(/["\\]/g, '')}"`).join(', ');
  const query = `ExecutionStatus = "Running" AND SwitchboardKind IN (${kinds})`;
  const limit = options.limit ?? 500;
  const stuck: StuckWorkflow[] = [];
  let seen = 0;
  for await (const execution of client.workflow.list({ query })) {
    if (++seen > limit) break;
    const description = await client.workflow
      .getHandle(execution.workflowId, execution.runId)
      .describe()
      .catch(() => undefined);
    const attempts = description?.raw.pendingWorkflowTask?.attempt ?? 0;
    if (attempts >= STUCK_AFTER_ATTEMPTS) {
      stuck.push({ workflowId: execution.workflowId, kind: execution.typedSearchAttributes.get(SwitchboardKind) ?? '', attempts });
    }
  }
  return stuck;
}

/** `findStuck` at most once per `ttlMs` (for /healthz, which may be polled often). */
export function cachedStuck(client: Client, ttlMs = 30_000): () => Promise<StuckWorkflow[]> {
  let last: { at: number; value: Promise<StuckWorkflow[]> } | undefined;
  return () => {
    if (!last || Date.now() - last.at > ttlMs) last = { at: Date.now(), value: findStuck(client).catch(() => []) };
    return last.value;
  };
}
