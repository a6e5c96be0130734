import { readFileSync } from 'node:fs';
import { type Client } from '@temporalio/client';
import { percentile } from './stats';

/** One activity call of a run, from its history: how long it waited for a worker slot and how long it ran. */
export interface Call {
  type: string;
  /** Scheduled → started: the wait for a slot (0 for an activity dispatched eagerly). */
  waitMs: number;
  /** Started → closed: the call itself. */
  runMs: number;
  /** Why it failed, when it did. */
  failure?: string;
}

const at = (event: { eventTime?: { seconds?: unknown; nanos?: number | null } | null }) =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);

/** Every activity call of a workflow's latest execution, in order. */
export async function callsOf(client: Client, workflowId: string): Promise<Call[]> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = new Map<string, { type: string; at: number; started?: number }>();
  const calls: Call[] = [];
  for (const event of events) {
    const id = String(event.eventId);
    const schedule = event.activityTaskScheduledEventAttributes;
    if (schedule) scheduled.set(id, { type: schedule.activityType?.name ?? '?', at: at(event) });
    const start = event.activityTaskStartedEventAttributes;
    if (start) {
      const entry = scheduled.get(String(start.scheduledEventId));
      if (entry) entry.started = at(event);
    }
    const closed =
      event.activityTaskCompletedEventAttributes ?? event.activityTaskFailedEventAttributes ?? event.activityTaskTimedOutEventAttributes;
    if (!closed) continue;
    const entry = scheduled.get(String(closed.scheduledEventId));
    if (!entry) continue;
    const started = entry.started ?? entry.at;
    const failure = event.activityTaskFailedEventAttributes?.failure ?? event.activityTaskTimedOutEventAttributes?.failure;
    calls.push({
      type: entry.type,
      waitMs: started - entry.at,
      runMs: at(event) - started,
      ...(failure ? { failure: `${failure.message ?? ''} ${failure.cause?.message ?? ''}`.trim() } : {}),
    });
  }
  return calls;
}

/** Ticks of CPU time: this process, the children it waited for (the sandboxed commands' chains), the whole host. */
export interface CpuTicks {
  self: number;
  children: number;
  hostBusy: number;
  hostTotal: number;
}

/** /proc/self/stat's utime+stime and cutime+cstime, and /proc/stat's busy and total ticks. */
export function cpuTicks(): CpuTicks {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  // After the command name: state is field 3, so utime (14) is index 11 here.
  const [utime, stime, cutime, cstime] = [fields[11], fields[12], fields[13], fields[14]];
  const host = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = host;
  const busy = user + nice + system + irq + softirq + steal;
  return { self: utime + stime, children: cutime + cstime, hostBusy: busy, hostTotal: busy + idle + iowait };
}

/** Memory samples while a level runs: this process's RSS and the host's used memory (MemTotal − MemAvailable), in MiB. */
export class MemorySampler {
  private timer?: NodeJS.Timeout;
  readonly baseline = { rss: rssMiB(), host: hostUsedMiB() };
  peak = { ...this.baseline };

  start(everyMs = 250): this {
    this.timer = setInterval(() => {
      this.peak = { rss: Math.max(this.peak.rss, rssMiB()), host: Math.max(this.peak.host, hostUsedMiB()) };
    }, everyMs);
    return this;
  }

  stop(): { rssPeakMiB: number; hostGrowthMiB: number } {
    clearInterval(this.timer);
    return { rssPeakMiB: this.peak.rss, hostGrowthMiB: this.peak.host - this.baseline.host };
  }
}

function rssMiB(): number {
  return Math.round(process.memoryUsage().rss / 2 ** 20);
}

function hostUsedMiB(): number {
  const info = readFileSync('/proc/meminfo', 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return Math.round((kib('MemTotal') - kib('MemAvailable')) / 1024);
}

/** `p50 / p99` of a list, in ms. */
export function p50p99(values: number[]): string {
  if (values.length === 0) return '—';
  return `${Math.round(percentile(values, 50))} / ${Math.round(percentile(values, 99))}`;
}

/** The p99 of `values` over the single-run p99, as `2.3×`. */
export function againstOne(values: number[], one: number[] | undefined): string {
  if (!one?.length || values.length === 0) return '—';
  return `${(percentile(values, 99) / percentile(one, 99)).toFixed(1)}×`;
}

/** The kind of bound a failure names, when it names one (loop devices, uids, cgroups, memory, slots). */
export function boundOf(failure: string): string | undefined {
  if (/loop device|losetup|\/dev\/loop/i.test(failure)) return 'loop devices';
  if (/no free sandbox uid/i.test(failure)) return 'uid range';
  if (/cgroup/i.test(failure)) return 'cgroups';
  if (/ENOMEM|out of memory|Cannot allocate memory/i.test(failure)) return 'memory';
  if (/schedule.?to.?start|host.*(gone|lost)|workspace_lost/i.test(failure)) return 'activity slots (a call waited past the host bound)';
  if (/EAGAIN|Resource temporarily unavailable|fork/i.test(failure)) return 'processes';
  return undefined;
}
