import { createInflate, inflateSync } from 'node:zlib';
import { deltaResultSize, OBJ_COMMIT, OBJ_OFS_DELTA, OBJ_REF_DELTA, resolveCommits, timeSlicer, type PackEntry } from './pack-deltas';

export { applyDelta } from './pack-deltas';

/**
 * The commits a pushed pack carries, with their parents: what the door needs to tell whether
 * an update builds on the branch's head (a fast-forward) before the pack reaches the git host.
 * Every object is inflated to find where the next starts (the format has no lengths); commits
 * are kept (resolving deltas against other commits of the pack), everything else is dropped as
 * it is read. A hostile pack is bounded: its object count (read from its header before the
 * first object), the bytes it inflates to with a cost per object (so empty objects count), the
 * bytes its deltas make; the work yields the event loop every few milliseconds, and objects
 * over a MiB inflate in zlib's thread pool, their bytes counted and not kept.
 */
export type PackCommits =
  { ok: true; parents: Map<string, string[]>; stats: { objects: number; deltaVisits: number } } | { ok: false; reason: string };

export interface PackLimits {
  hash: 'sha1' | 'sha256';
  /** What the pack may inflate to, each object counting OBJECT_COST_BYTES besides its size. */
  maxInflatedBytes: number;
  /** How many objects a pack may say it holds; MAX_PACK_OBJECTS when absent. */
  maxObjects?: number;
}

/** Far above a real push's (a 64 MiB pack of real code holds a few hundred thousand objects). */
export const MAX_PACK_OBJECTS = 1_000_000;
/** What one object costs of the inflation budget besides its size: reading it is work even when it is empty. */
export const OBJECT_COST_BYTES = 64;
/** The smallest object a pack can hold: a one-byte header and an empty zlib stream (2 + 2 + 4 bytes). */
const MIN_OBJECT_BYTES = 9;
/** Larger objects inflate in zlib's thread pool, not on the event loop. */
const LARGE_OBJECT_BYTES = 1024 * 1024;
/** A delta whose result is larger than this is no commit worth keeping. */
const MAX_COMMIT_BYTES = 1024 * 1024;
/** The event loop gets a turn at least this often while a pack is read. */
const SLICE_MS = 20;

const TYPE_NAMES: Record<number, string> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };

type ObjectHeader = { type: number; size: number; next: number; baseOffset?: number; baseId?: string } | { reason: string };

/** The type-and-size header of the object at `at`, and for a delta its base. */
function readObjectHeader(pack: Buffer, at: number, end: number, idBytes: number): ObjectHeader {
  const offset = at;
  if (at >= end) return { reason: 'the pack ends before its last object' };
  let byte = pack[at++];
  const type = (byte >> 4) & 7;
  let size = byte & 15;
  for (let shift = 4; byte & 0x80; shift += 7) {
    if (at >= end || shift > 49) return { reason: 'the pack has a malformed object header' };
    byte = pack[at++];
    size += (byte & 0x7f) * 2 ** shift;
  }
  if (type === OBJ_OFS_DELTA) {
    if (at >= end) return { reason: 'the pack has a malformed delta offset' };
    byte = pack[at++];
    let distance = byte & 0x7f;
    while (byte & 0x80) {
      if (at >= end || distance > 2 ** 45) return { reason: 'the pack has a malformed delta offset' };
      byte = pack[at++];
      distance = (distance + 1) * 128 + (byte & 0x7f);
    }
    return { type, size, next: at, baseOffset: offset - distance };
  }
  if (type === OBJ_REF_DELTA) {
    if (at + idBytes > end) return { reason: 'the pack has a malformed delta base' };
    return { type, size, next: at + idBytes, baseId: pack.toString('hex', at, at + idBytes) };
  }
  if (!TYPE_NAMES[type]) return { reason: `the pack has an object of unknown type ${type}` };
  return { type, size, next: at };
}

type Inflated = { data?: Buffer; consumed: number } | { reason: string };

function inflateSmall(input: Buffer, size: number): Inflated {
  try {
    const result = inflateSync(input, { info: true, maxOutputLength: Math.max(size, 1) }) as unknown as {
      buffer: Buffer;
      engine: { bytesWritten: number };
    };
    if (result.buffer.length !== size) return { reason: 'an object of the pack is not the size its header says' };
    return { data: result.buffer, consumed: result.engine.bytesWritten };
  } catch (error) {
    return { reason: `an object of the pack does not inflate (${(error as Error).message})` };
  }
}

/** Inflates in zlib's thread pool, counting the bytes and keeping them only when asked. */
function inflateLarge(input: Buffer, size: number, keep: boolean): Promise<Inflated> {
  return new Promise((resolve) => {
    const engine = createInflate();
    const chunks: Buffer[] = [];
    let length = 0;
    engine.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > size) engine.destroy(new Error('more bytes than its header says'));
      else if (keep) chunks.push(chunk);
    });
    engine.once('end', () =>
      resolve(
        length === size
          ? { data: keep ? Buffer.concat(chunks) : undefined, consumed: engine.bytesWritten }
          : { reason: 'an object of the pack is not the size its header says' },
      ),
    );
    engine.once('error', (error) => resolve({ reason: `an object of the pack does not inflate (${error.message})` }));
    engine.end(input);
  });
}

export async function packCommits(pack: Buffer, limits: PackLimits): Promise<PackCommits> {
  const refuse = (reason: string): PackCommits => ({ ok: false, reason });
  const idBytes = limits.hash === 'sha1' ? 20 : 32;
  if (pack.length < 12 + idBytes || pack.toString('latin1', 0, 4) !== 'PACK') return refuse('the push carries no valid pack');
  const version = pack.readUInt32BE(4);
  if (version !== 2 && version !== 3) return refuse(`the pack has version ${version}`);
  const count = pack.readUInt32BE(8);
  const end = pack.length - idBytes;
  const maxObjects = limits.maxObjects ?? MAX_PACK_OBJECTS;
  if (count > maxObjects) return refuse(`the pack holds ${count} objects, more than the ${maxObjects} the door reads to check it`);
  if (count * MIN_OBJECT_BYTES > end - 12) return refuse(`the pack says it holds ${count} objects, more than its ${pack.length} bytes can`);
  const pause = timeSlicer(SLICE_MS);
  const entries: PackEntry[] = [];
  let budget = limits.maxInflatedBytes;
  let at = 12;
  for (let index = 0; index < count; index += 1) {
    await pause();
    const header = readObjectHeader(pack, at, end, idBytes);
    if ('reason' in header) return refuse(header.reason);
    budget -= header.size + OBJECT_COST_BYTES;
    if (budget < 0) return refuse(`the pack is larger than the ${limits.maxInflatedBytes} bytes the door reads to check it`);
    const delta = header.type === OBJ_OFS_DELTA || header.type === OBJ_REF_DELTA;
    const keep = header.type === OBJ_COMMIT || (delta && header.size <= MAX_COMMIT_BYTES);
    const input = pack.subarray(header.next, end);
    const inflated = header.size > LARGE_OBJECT_BYTES ? await inflateLarge(input, header.size, keep) : inflateSmall(input, header.size);
    if ('reason' in inflated) return refuse(inflated.reason);
    if (keep && inflated.data && (!delta || deltaResultSize(inflated.data) <= MAX_COMMIT_BYTES))
      entries.push({ offset: at, type: header.type, data: inflated.data, baseOffset: header.baseOffset, baseId: header.baseId });
    at = header.next + inflated.consumed;
  }
  const resolved = await resolveCommits(entries, limits.hash, limits.maxInflatedBytes, pause);
  if ('reason' in resolved) return refuse(resolved.reason);
  const parents = new Map<string, string[]>();
  for (const { id, data } of resolved.commits) {
    const blank = data.indexOf('\n\n');
    const header = data.toString('latin1', 0, blank >= 0 ? blank : data.length);
    parents.set(
      id,
      header
        .split('\n')
        .filter((line) => line.startsWith('parent '))
        .map((line) => line.slice(7).trim()),
    );
  }
  return { ok: true, parents, stats: { objects: count, deltaVisits: resolved.deltaVisits } };
}

/** Whether `newId` descends from `oldId` through the pack's commits: `unknown` when its history leaves the pack first. */
export function descendsFrom(parents: Map<string, string[]>, newId: string, oldId: string): 'yes' | 'no' | 'unknown' {
  if (newId === oldId) return 'yes';
  const seen = new Set<string>();
  const queue = [newId];
  let leftThePack = false;
  while (queue.length > 0) {
    const id = queue.pop()!;
    if (id === oldId) return 'yes';
    if (seen.has(id)) continue;
    seen.add(id);
    const mine = parents.get(id);
    if (!mine) {
      leftThePack = true;
      continue;
    }
    queue.push(...mine);
  }
  return leftThePack ? 'unknown' : 'no';
}
