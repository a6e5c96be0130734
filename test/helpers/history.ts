import { type Client } from '@temporalio/client';

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
