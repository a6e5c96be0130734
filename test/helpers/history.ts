import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { type Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { projectRoot } from '../../infra/paths';
import { localActivityMarker } from '../../infra/history/decode';
import { waitUntil } from './wait';

/** Per activity type: how many were scheduled, completed, failed and timed out in a workflow's history. */
export type ActivityCounts = Record<string, { scheduled: number; completed: number; failed: number; timedOut: number }>;

export async function activityCounts(client: Client, workflowId: string): Promise<ActivityCounts> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const typeOf = new Map<string, string>();
  const counts: ActivityCounts = {};
  const entry = (type: string) => (counts[type] ??= { scheduled: 0, completed: 0, failed: 0, timedOut: 0 });
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name) {
      typeOf.set(String(event.eventId), scheduled.activityType.name);
      entry(scheduled.activityType.name).scheduled += 1;
    }
    const ended =
      event.activityTaskCompletedEventAttributes ?? event.activityTaskFailedEventAttributes ?? event.activityTaskTimedOutEventAttributes;
    const type = ended ? typeOf.get(String(ended.scheduledEventId)) : undefined;
    if (!type) continue;
    if (event.activityTaskCompletedEventAttributes) entry(type).completed += 1;
    else if (event.activityTaskFailedEventAttributes) entry(type).failed += 1;
    else entry(type).timedOut += 1;
  }
  return counts;
}

/** The results of a workflow's completed activities of one type, in order (payloads decoded with the default converter). */
export async function activityResults<T>(client: Client, workflowId: string, type: string): Promise<T[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Set<string>();
  const results: T[] = [];
  for (const event of history.events ?? []) {
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === type) scheduled.add(String(event.eventId));
    const done = event.activityTaskCompletedEventAttributes;
    if (done && scheduled.has(String(done.scheduledEventId)))
      results.push(defaultPayloadConverter.fromPayload<T>(done.result!.payloads![0]));
  }
  return results;
}

/**
 * The runs one execution of a thread started, in order, and how: by its `startRun` local activity
 * (eager start; `eager` when the run's first task came back in the start's answer) or as a child.
 */
export async function runsStartedBy(
  client: Client,
  threadId: string,
  executionRunId?: string,
): Promise<Array<{ runId: string; how: 'eager' | 'local' | 'child' }>> {
  const history = await client.workflow.getHandle(threadId, executionRunId).fetchHistory();
  const runs: Array<{ runId: string; how: 'eager' | 'local' | 'child' }> = [];
  for (const event of history.events ?? []) {
    const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
    if (child?.workflowId) runs.push({ runId: child.workflowId, how: 'child' });
    const local = localActivityMarker(event);
    if (local?.activityType !== 'startRun' || !local.result?.[0]?.data) continue;
    const started = JSON.parse(Buffer.from(local.result[0].data).toString('utf8')) as { runId: string; eager?: boolean };
    runs.push({ runId: started.runId, how: started.eager ? 'eager' : 'local' });
  }
  return runs;
}

/** Where recorded histories live: one JSON file per workflow run, grouped by workflow. */
export const HISTORIES_DIR = join(projectRoot(), 'test', 'histories');

/**
 * Writes one run of a workflow as a JSON history for the replay test: the format `temporal
 * workflow show --output json` writes (one event per line), plus the workflow id at the top (workflow code derives
 * child ids and effect keys from it, so a replay needs the original). `runId` picks one run of
 * a continue-as-new chain; the latest otherwise. Returns the file, relative to the folder.
 */
export async function saveHistory(client: Client, workflowId: string, name: string, runId?: string): Promise<string> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const file = join(HISTORIES_DIR, `${name}.json`);
  mkdirSync(dirname(file), { recursive: true });
  const { events } = JSON.parse(historyToJSON(history)) as { events: unknown[] };
  // One event per line: small, and a re-recording's diff reads event by event.
  const lines = events.map((event) => JSON.stringify(event)).join(',\n');
  writeFileSync(file, `{"workflowId":${JSON.stringify(workflowId)},"events":[\n${lines}\n]}\n`);
  return relative(HISTORIES_DIR, file);
}

/** Every run of a workflow id, oldest first (a continue-as-new chain), once visibility lists `count` of them. */
export async function runsOf(client: Client, workflowId: string, count: number): Promise<string[]> {
  return waitUntil(
    async () => {
      const runs: Array<{ runId: string; start: number }> = [];
      for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
        runs.push({ runId: execution.runId, start: execution.startTime.getTime() });
      return runs.sort((a, b) => a.start - b.start).map((run) => run.runId);
    },
    (runs) => runs.length >= count,
  );
}

/** The recorded histories, with their workflow ids, for `Worker.runReplayHistories`. */
export function recordedHistories(): Array<{ file: string; workflowId: string; workflowType: string; history: unknown }> {
  const files = existsSync(HISTORIES_DIR) ? listJson(HISTORIES_DIR) : [];
  return files.map((path) => {
    const { workflowId, ...history } = JSON.parse(readFileSync(path, 'utf8')) as {
      workflowId: string;
      events: Array<{ workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }>;
    };
    const started = history.events[0]?.workflowExecutionStartedEventAttributes;
    return { file: relative(HISTORIES_DIR, path), workflowId, workflowType: started?.workflowType?.name ?? '?', history };
  });
}

function listJson(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? listJson(join(dir, entry.name)) : entry.name.endsWith('.json') ? [join(dir, entry.name)] : [],
    )
    .sort();
}
