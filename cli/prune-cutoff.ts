import { type Client } from '@temporalio/client';
import { SAFETY_MARGIN_MS } from './payload-prune';

export interface PruneCutoff {
  cutoff: Date;
  /** The age asked for (or the retention plus the margin). */
  ageMs: number;
  /** The namespace's retention, when the age was not given. */
  retentionMs?: number;
  /** The oldest retained workflow that moved the cutoff back, if one did. */
  heldBy?: { workflowId: string; status: string; startTime: Date };
}

/** The namespace's workflow execution retention, from DescribeNamespace. */
export async function namespaceRetentionMs(client: Client, namespace: string): Promise<number> {
  const described = await client.workflowService.describeNamespace({ namespace });
  const ttl = described.config?.workflowExecutionRetentionTtl;
  if (!ttl) throw new Error(`namespace ${namespace} reports no retention period: pass --older-than`);
  return Number(ttl.seconds ?? 0) * 1_000 + Math.floor((ttl.nanos ?? 0) / 1e6);
}

/**
 * Blobs last written before the cutoff are pruned. The cutoff is `now - age` (age: the
 * given one, else retention + margin), moved back to the start of the oldest workflow the
 * namespace still lists (open, or closed and not yet deleted by retention) minus the margin:
 * every payload a listed history holds was written (or refreshed) after that history began,
 * so nothing a retained history references is older than the cutoff.
 */
export async function pruneCutoff(client: Client, namespace: string, now: Date, olderThanMs?: number): Promise<PruneCutoff> {
  const retentionMs = olderThanMs === undefined ? await namespaceRetentionMs(client, namespace) : undefined;
  const ageMs = olderThanMs ?? retentionMs! + SAFETY_MARGIN_MS;
  let cutoff = new Date(now.getTime() - ageMs);
  let heldBy: PruneCutoff['heldBy'];
  // Only workflows that started before cutoff + margin can move it; usually none or a few long-lived ones.
  const query = `StartTime < "${new Date(cutoff.getTime() + SAFETY_MARGIN_MS).toISOString()}"`;
  for await (const execution of client.workflow.list({ query })) {
    const held = new Date(execution.startTime.getTime() - SAFETY_MARGIN_MS);
    if (held < cutoff) {
      cutoff = held;
      heldBy = { workflowId: execution.workflowId, status: execution.status.name, startTime: execution.startTime };
    }
  }
  return { cutoff, ageMs, ...(retentionMs !== undefined ? { retentionMs } : {}), ...(heldBy ? { heldBy } : {}) };
}
