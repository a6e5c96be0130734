import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';

/** One object of a pack the door keeps: a commit's bytes, or a delta that may yield one and what it is a delta of. */
export interface PackEntry {
  offset: number;
  type: number;
  data: Buffer;
  baseOffset?: number;
  baseId?: string;
}

export const OBJ_COMMIT = 1;
export const OBJ_OFS_DELTA = 6;
export const OBJ_REF_DELTA = 7;

export interface ResolvedCommits {
  commits: Array<{ id: string; data: Buffer }>;
  /** How many times a delta was looked at: at most once each, whatever order the pack has them in. */
  deltaVisits: number;
}

/**
 * A pause that gives the event loop back once `sliceMs` has passed since the last: the door's
 * checks run on the worker's loop, which serves every other sandbox and activity meanwhile.
 */
export function timeSlicer(sliceMs: number): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await nextTurn();
    since = performance.now();
  };
}

/**
 * Every commit of the pack: the whole ones, then each delta as soon as its base is a resolved
 * commit (a worklist keyed by base, so a chain in any order, even reversed, costs one visit per
 * delta). A delta's result takes the base's type, so every resolved delta is a commit; their bytes
 * together may not pass `maxBytes` (a small delta can copy a large result).
 */
export async function resolveCommits(
  entries: PackEntry[],
  hash: 'sha1' | 'sha256',
  maxBytes: number,
  pause: () => Promise<void>,
): Promise<ResolvedCommits | { reason: string }> {
  const waiting = new Map<string, PackEntry[]>();
  const commits: Array<{ id: string; data: Buffer; offset: number }> = [];
  const remember = (offset: number, data: Buffer) => {
    const id = createHash(hash).update(`commit ${data.length}\0`).update(data).digest('hex');
    commits.push({ id, data, offset });
  };
  for (const entry of entries) {
    if (entry.type === OBJ_COMMIT) remember(entry.offset, entry.data);
    else {
      const key = entry.baseOffset !== undefined ? `o${entry.baseOffset}` : `i${entry.baseId}`;
      const list = waiting.get(key);
      if (list) list.push(entry);
      else waiting.set(key, [entry]);
    }
  }
  let resolved = 0;
  let deltaVisits = 0;
  for (let next = 0; next < commits.length; next += 1) {
    const base = commits[next];
    for (const key of [`o${base.offset}`, `i${base.id}`]) {
      const dependents = waiting.get(key);
      if (!dependents) continue;
      // Taken once: a second commit with the same id is the same bytes.
      waiting.delete(key);
      for (const delta of dependents) {
        deltaVisits += 1;
        await pause();
        const result = applyDelta(base.data, delta.data);
        if (!result) continue;
        resolved += result.length;
        if (resolved > maxBytes) return { reason: `the pack's deltas make more than the ${maxBytes} bytes of commits the door reads` };
        remember(delta.offset, result);
      }
    }
  }
  return { commits, deltaVisits };
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

/** The size a delta says its result has. */
export function deltaResultSize(delta: Buffer): number {
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
      if (at > delta.length || offset + size > base.length || written + size > out.length) return undefined;
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
