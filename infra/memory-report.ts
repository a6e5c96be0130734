import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { join } from 'node:path';

/** What `SWITCHBOARD_MEMORY_REPORT` prints, in MiB. */
export interface MemoryReport {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  heapLimit: number;
  /** V8's old space, used of committed: what a long-lived cache lives in. */
  oldSpaceUsed: number;
  oldSpaceCommitted: number;
  /** Whether a full GC ran first (the process was started with --expose-gc). */
  collected: boolean;
  snapshot?: string;
}

const MIB = 1024 * 1024;

/** The process's memory now, after a full GC when `global.gc` is exposed. */
export function memoryReport(): MemoryReport {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const usage = process.memoryUsage();
  const old = getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
  const round = (bytes: number) => Math.round((bytes / MIB) * 10) / 10;
  return {
    rss: round(usage.rss),
    heapUsed: round(usage.heapUsed),
    heapTotal: round(usage.heapTotal),
    external: round(usage.external),
    arrayBuffers: round(usage.arrayBuffers),
    heapLimit: round(getHeapStatistics().heap_size_limit),
    oldSpaceUsed: round(old?.space_used_size ?? 0),
    oldSpaceCommitted: round(old?.space_size ?? 0),
    collected: Boolean(gc),
  };
}

/**
 * A diagnostic for sizing (docs/performance.md), off unless `SWITCHBOARD_MEMORY_REPORT` is set:
 * each SIGUSR2 prints one `SWITCHBOARD_MEMORY {json}` line on stdout. The SDK runs workflows in a
 * worker thread with its own V8 heap, which this process's heap figures do not include; `inline`
 * runs them in the main thread instead (the SDK's debug mode) so the heap figures count them, and
 * `snapshot:<dir>` does that and also writes a heap snapshot there (slow and large: for a few
 * hundred workflows, not thousands). Never for production: debug mode turns off the SDK's
 * deadlock detection.
 */
export function installMemoryReport(env: NodeJS.ProcessEnv = process.env): false | { inlineWorkflows: boolean } {
  const setting = env.SWITCHBOARD_MEMORY_REPORT;
  if (!setting) return false;
  const snapshotDir = setting.startsWith('snapshot:') ? setting.slice('snapshot:'.length) : undefined;
  process.on('SIGUSR2', () => {
    const report: MemoryReport = memoryReport();
    if (snapshotDir) report.snapshot = writeHeapSnapshot(join(snapshotDir, `worker-${process.pid}-${Date.now()}.heapsnapshot`));
    process.stdout.write(`SWITCHBOARD_MEMORY ${JSON.stringify(report)}\n`);
  });
  return { inlineWorkflows: setting === 'inline' || Boolean(snapshotDir) };
}
