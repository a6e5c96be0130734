import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * The task queue of this worker's host: workspaces live on one host's disk, so the activities
 * that use a workspace belong on the queue of the host that prepared it (`prepareWorkspace`
 * returns it). The id is kept in the data directory, so a restarted worker on the same disk
 * serves the same queue, and two workers with separate data directories never share one.
 */
export function hostTaskQueue(taskQueue: string, dataDir: string): string {
  return `${taskQueue}@${hostId(dataDir)}`;
}

function hostId(dataDir: string): string {
  const file = join(dataDir, 'host-id');
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept) return kept;
  } catch {
    // First start on this disk.
  }
  const id = `${hostname().replace(/[^A-Za-z0-9.-]/g, '-')}-${randomBytes(4).toString('hex')}`;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${id}\n`, { flag: 'wx' });
  return id;
}
