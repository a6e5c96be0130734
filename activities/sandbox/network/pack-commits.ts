import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';

/**
 * The commits a pushed pack carries, with their parents: what the door needs to tell whether
 * an update builds on the branch's head (a fast-forward) before the pack reaches the git host.
 * Every object is inflated to find where the next starts (the format has no lengths), bounded
 * by `maxInflatedBytes`; commits are kept (resolving deltas against other commits of the pack),
 * everything else is dropped as it is read.
 */
export type PackCommits = { ok: true; parents: Map<string, string[]> } | { ok: false; reason: string };

const OBJ_COMMIT = 1;
const OBJ_OFS_DELTA = 6;
const OBJ_REF_DELTA = 7;
const TYPE_NAMES: Record<number, string> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
/** A delta whose result is larger than this is no commit worth keeping. */
const MAX_COMMIT_BYTES = 1024 * 1024;

interface Entry {
  type: number;
  /** Commits: the object's bytes; deltas that may yield a commit: the delta's bytes. */
  data?: Buffer;
  baseOffset?: number;
  baseId?: string;
}

export function packCommits(pack: Buffer, options: { hash: 'sha1' | 'sha256'; maxInflatedBytes: number }): PackCommits {
  const idBytes = options.hash === 'sha1' ? 20 : 32;
  if (pack.length < 12 + idBytes || pack.toString('latin1', 0, 4) !== 'PACK')
    return { ok: false, reason: 'the push carries no valid pack' };
  const version = pack.readUInt32BE(4);
  if (version !== 2 && version !== 3) return { ok: false, reason: `the pack has version ${version}` };
  const count = pack.readUInt32BE(8);
  const end = pack.length - idBytes;
  const entries = new Map<number, Entry>();
  let at = 12;
  let inflated = 0;
  for (let index = 0; index < count; index += 1) {
    const offset = at;
    if (at >= end) return { ok: false, reason: 'the pack ends before its last object' };
    let byte = pack[at++];
    const type = (byte >> 4) & 7;
    let size = byte & 15;
    for (let shift = 4; byte & 0x80; shift += 7) {
      if (at >= end || shift > 49) return { ok: false, reason: 'the pack has a malformed object header' };
      byte = pack[at++];
      size += (byte & 0x7f) * 2 ** shift;
    }
    const entry: Entry = { type };
    if (type === OBJ_OFS_DELTA) {
      if (at >= end) return { ok: false, reason: 'the pack has a malformed delta offset' };
      byte = pack[at++];
      let distance = byte & 0x7f;
      while (byte & 0x80) {
        if (at >= end || distance > 2 ** 45) return { ok: false, reason: 'the pack has a malformed delta offset' };
        byte = pack[at++];
        distance = (distance + 1) * 128 + (byte & 0x7f);
      }
      entry.baseOffset = offset - distance;
    } else if (type === OBJ_REF_DELTA) {
      if (at + idBytes > end) return { ok: false, reason: 'the pack has a malformed delta base' };
      entry.baseId = pack.toString('hex', at, at + idBytes);
      at += idBytes;
    } else if (!TYPE_NAMES[type]) return { ok: false, reason: `the pack has an object of unknown type ${type}` };
    if (inflated + size > options.maxInflatedBytes)
      return { ok: false, reason: `the pack is larger than the ${options.maxInflatedBytes} bytes the door reads to check it` };
    let data: Buffer;
    let consumed: number;
    try {
      const result = inflateSync(pack.subarray(at, end), { info: true, maxOutputLength: Math.max(size, 1) }) as unknown as {
        buffer: Buffer;
        engine: { bytesWritten: number };
      };
      data = result.buffer;
      consumed = result.engine.bytesWritten;
    } catch (error) {
      return { ok: false, reason: `an object of the pack does not inflate (${(error as Error).message})` };
    }
    if (data.length !== size) return { ok: false, reason: 'an object of the pack is not the size its header says' };
    inflated += size;
    at += consumed;
    if (type === OBJ_COMMIT || ((type === OBJ_OFS_DELTA || type === OBJ_REF_DELTA) && deltaResultSize(data) <= MAX_COMMIT_BYTES))
      entry.data = data;
    entries.set(offset, entry);
  }
  return { ok: true, parents: commitParents(entries, options.hash) };
}

/** Resolves every commit of the pack (whole, or a delta chain ending in one) and reads its parents. */
function commitParents(entries: Map<number, Entry>, hash: 'sha1' | 'sha256'): Map<string, string[]> {
  const commits = new Map<number, { id: string; data: Buffer }>();
  const byId = new Map<string, Buffer>();
  const remember = (offset: number, data: Buffer) => {
    const id = createHash(hash).update(`commit ${data.length}\0`).update(data).digest('hex');
    commits.set(offset, { id, data });
    byId.set(id, data);
  };
  for (const [offset, entry] of entries) if (entry.type === OBJ_COMMIT && entry.data) remember(offset, entry.data);
  // Deltas on deltas: resolve in passes until nothing more resolves.
  for (let progress = true; progress;) {
    progress = false;
    for (const [offset, entry] of entries) {
      if (commits.has(offset) || !entry.data || (entry.type !== OBJ_OFS_DELTA && entry.type !== OBJ_REF_DELTA)) continue;
      const base = entry.baseOffset !== undefined ? commits.get(entry.baseOffset)?.data : byId.get(entry.baseId ?? '');
      if (!base) continue;
      const result = applyDelta(base, entry.data);
      if (!result) continue;
      remember(offset, result);
      progress = true;
    }
  }
  const parents = new Map<string, string[]>();
  for (const { id, data } of commits.values()) {
    const header = data.toString('latin1', 0, Math.min(data.length, data.indexOf('\n\n') >= 0 ? data.indexOf('\n\n') : data.length));
    parents.set(
      id,
      header
        .split('\n')
        .filter((line) => line.startsWith('parent '))
        .map((line) => line.slice(7).trim()),
    );
  }
  return parents;
}

function readVarint(delta: Buffer, at: number): { value: number; next: number } {
  let value = 0;
  let shift = 0;
  let byte: number;
  do {
    byte = delta[at++] ?? 0;
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80 && shift < 56);
  return { value, next: at };
}

function deltaResultSize(delta: Buffer): number {
  return readVarint(delta, readVarint(delta, 0).next).value;
}

/** git's delta format: the base's and result's sizes, then copy (from the base) and insert instructions. */
export function applyDelta(base: Buffer, delta: Buffer): Buffer | undefined {
  const baseSize = readVarint(delta, 0);
  if (baseSize.value !== base.length) return undefined;
  const resultSize = readVarint(delta, baseSize.next);
  const out = Buffer.alloc(resultSize.value);
  let written = 0;
  let at = resultSize.next;
  while (at < delta.length) {
    const op = delta[at++];
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      for (let bit = 0; bit < 4; bit += 1) if (op & (1 << bit)) offset += delta[at++] * 2 ** (8 * bit);
      for (let bit = 0; bit < 3; bit += 1) if (op & (1 << (4 + bit))) size += delta[at++] * 2 ** (8 * bit);
      if (size === 0) size = 0x10000;
      if (offset + size > base.length || written + size > out.length) return undefined;
      base.copy(out, written, offset, offset + size);
      written += size;
    } else if (op > 0) {
      if (at + op > delta.length || written + op > out.length) return undefined;
      delta.copy(out, written, at, at + op);
      written += op;
      at += op;
    } else return undefined;
  }
  return written === out.length ? out : undefined;
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
