import { randomUUID } from 'node:crypto';
import { readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** A `.partial` file younger than this may be a write in flight: never touched. */
export const PARTIAL_GRACE_MS = 60 * 60 * 1_000;

/**
 * Added to the namespace's retention for the default age, and taken off the oldest retained
 * workflow's start: covers a payload encoded a little before the workflow that holds it
 * started (a client's start, a continue-as-new), a Temporal retry or a schedule copying an
 * input without encoding it again, and clock skew between the hosts that write the folder.
 */
export const SAFETY_MARGIN_MS = 24 * 60 * 60 * 1_000;

const BLOB = /^[0-9a-f]{64}$/;
const PARTIAL = /^[0-9a-f]{64}\.[0-9a-f-]+\.partial$/;
const SET_ASIDE = /^([0-9a-f]{64})\.[0-9a-f-]+\.pruning$/;

export interface PruneCount {
  files: number;
  bytes: number;
}

export interface PruneReport {
  /** Blobs last written before the cutoff: deleted (or, in a dry run, that would be). */
  deleted: PruneCount;
  kept: PruneCount;
  /** Abandoned `.partial` writes older than an hour: deleted (or would be). */
  stalePartials: PruneCount;
  /** `.partial` files younger than an hour: left alone. */
  inFlightPartials: PruneCount;
}

/**
 * Deletes the claim-check blobs of a directory store last written (mtime) before `cutoff`:
 * the store refreshes a blob's mtime on every write, so an older blob is referenced only by
 * histories that began before the cutoff. A blob is first renamed aside and its mtime read
 * again, so one written again meanwhile (its mtime refreshed) is put back, not lost.
 */
export async function pruneDirectory(options: { dir: string; cutoff: Date; now: Date; dryRun: boolean }): Promise<PruneReport> {
  const report: PruneReport = {
    deleted: { files: 0, bytes: 0 },
    kept: { files: 0, bytes: 0 },
    stalePartials: { files: 0, bytes: 0 },
    inFlightPartials: { files: 0, bytes: 0 },
  };
  const cutoff = options.cutoff.getTime();
  const partialCutoff = options.now.getTime() - PARTIAL_GRACE_MS;
  for (const folder of await listNames(options.dir)) {
    if (!/^[0-9a-f]{2}$/.test(folder)) continue;
    for (const name of await listNames(join(options.dir, folder))) {
      const file = join(options.dir, folder, name);
      const found = await stat(file).catch(() => undefined);
      if (!found?.isFile()) continue;
      const size = { files: 1, bytes: found.size };
      if (BLOB.test(name) && name.startsWith(folder)) {
        const old = found.mtimeMs < cutoff;
        if (old && (options.dryRun || (await deleteUnlessRefreshed(file, cutoff)))) add(report.deleted, size);
        else add(report.kept, size);
      } else if (PARTIAL.test(name)) {
        const stale = found.mtimeMs < partialCutoff;
        if (stale && !options.dryRun) await unlink(file).catch(ignoreMissing);
        add(stale ? report.stalePartials : report.inFlightPartials, size);
      } else if (SET_ASIDE.test(name) && !options.dryRun) {
        // A prune that stopped between its rename and its decision: finish it.
        await settleSetAside(file, join(options.dir, folder, SET_ASIDE.exec(name)![1]), found.mtimeMs < cutoff);
      }
    }
  }
  return report;
}

async function deleteUnlessRefreshed(file: string, cutoff: number): Promise<boolean> {
  const aside = `${file}.${randomUUID()}.pruning`;
  try {
    await rename(file, aside);
  } catch (error) {
    ignoreMissing(error);
    return false;
  }
  const again = await stat(aside);
  return settleSetAside(aside, file, again.mtimeMs < cutoff);
}

/** Deletes a set-aside blob that is still old, else puts it back; true when deleted. */
async function settleSetAside(aside: string, file: string, old: boolean): Promise<boolean> {
  if (old) {
    await unlink(aside).catch(ignoreMissing);
    return true;
  }
  // Written again while set aside: a fresh copy may already be back (same content, same name).
  await rename(aside, file);
  return false;
}

async function listNames(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    ignoreMissing(error);
    return [];
  }
}

function add(count: PruneCount, more: PruneCount): void {
  count.files += more.files;
  count.bytes += more.bytes;
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}

/** `90m`, `36h`, `30d`, `2w` (or `45s`) as milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+)([smhdw])$/.exec(text.trim());
  if (!match || Number(match[1]) <= 0) throw new Error(`--older-than: expected a duration like 36h, 30d or 2w, got '${text}'`);
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[match[2] as 's' | 'm' | 'h' | 'd' | 'w'];
  return Number(match[1]) * unit;
}

/** A duration for people: `36h`, `2d 3h`, `45m`. */
export function formatDuration(ms: number): string {
  const hours = Math.floor(ms / 3_600_000);
  if (hours === 0) return `${Math.round(ms / 60_000)}m`;
  const days = Math.floor(hours / 24);
  return days > 0 ? `${days}d${hours % 24 ? ` ${hours % 24}h` : ''}` : `${hours}h`;
}
