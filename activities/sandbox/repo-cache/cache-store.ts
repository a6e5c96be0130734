import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, lchown, lstat, mkdir, open, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type CacheLayout } from './cache-layout';

/** A pack the worker sealed into a cache's published store. */
export interface SealedPack {
  /** `pack-<hash>` (its `.pack` and `.idx`). */
  name: string;
  /** Bytes of the `.pack` and the `.idx`, and the SHA-256 of each, taken when they were sealed. */
  packBytes: number;
  idxBytes: number;
  packSha256: string;
  idxSha256: string;
  /** Objects the pack holds (from its index, once sealed). */
  objects?: number;
}

/** A setup result kept for the repository (setup-store.ts). */
export interface KeptSetup {
  key: string;
  bytes: number;
  at: string;
  /**
   * Where it was captured: only `trusted` (a trusted checkout's first setup, run with the write
   * identity) is ever copied into another run. Results kept before this was recorded carry none
   * and are never restored: any run could have made them.
   */
  from?: 'trusted';
}

/** What the worker keeps about one cache (its own file; nothing in it came from a sandbox but checked data). */
export interface CacheMeta {
  repo: string;
  createdAt: string;
  usedAt: string;
  refreshedAt?: string;
  packs: SealedPack[];
  /** Branch tips the mirror held after its last fetch: negotiation hints for a consumer's own fetch, never trusted further. */
  tips: Array<{ sha: string; ref: string }>;
  setups: KeptSetup[];
}

export async function readMeta(path: string): Promise<CacheMeta | undefined> {
  try {
    const meta = JSON.parse(await readFile(path, 'utf8')) as CacheMeta;
    return typeof meta.repo === 'string' && Array.isArray(meta.packs)
      ? { ...meta, tips: meta.tips ?? [], setups: meta.setups ?? [] }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Written aside and renamed: a kill leaves the old meta or the new, never half of one. */
export async function writeMeta(layout: CacheLayout, meta: CacheMeta): Promise<void> {
  const aside = `${layout.meta}.${process.pid}.tmp`;
  await writeFile(aside, JSON.stringify(meta), { mode: 0o600 });
  await rename(aside, layout.meta);
}

/** The worker's folders of a cache: root's, with the published store readable (never writable) by others. */
export async function ensureCacheFolders(layout: CacheLayout): Promise<void> {
  await mkdir(layout.root, { recursive: true, mode: 0o700 });
  await chmod(layout.root, 0o700);
  for (const folder of [layout.objects, layout.packs, join(layout.objects, 'info')]) {
    await mkdir(folder, { recursive: true, mode: 0o755 });
    const found = await lstat(folder);
    if (!found.isDirectory() || found.uid !== 0) throw new Error(`${folder} must be a folder of the worker's own`);
    await chmod(folder, 0o755);
  }
  await mkdir(layout.setups, { recursive: true, mode: 0o700 });
}

/** The total bytes a cache holds on the host (sealed packs and kept setups). */
export function cacheBytes(meta: CacheMeta): number {
  return meta.packs.reduce((sum, pack) => sum + pack.packBytes + pack.idxBytes, 0) + meta.setups.reduce((sum, kept) => sum + kept.bytes, 0);
}

const PACK_NAME = /^pack-([0-9a-f]{40}|[0-9a-f]{64})\.pack$/;

/**
 * Moves the packs the index step verified into the published store and seals them (root's, 0444).
 * Runs only once no process of the cache's uid is left, so nothing can change under it; every
 * folder on the way must be the uid's own real folder and every file a regular file of its own
 * with one link, checked with lstat (never followed). The `.pack` goes first, its `.idx` last:
 * git sees a pack only through its index, so a consumer never sees half a pair.
 */
export async function sealVerified(layout: CacheLayout, uid: number): Promise<SealedPack[]> {
  const { workspace } = layout;
  const folders = [workspace.data, workspace.work, join(workspace.work, 'verified'), layout.verified];
  for (const folder of folders) {
    const found = await lstat(folder).catch(() => undefined);
    if (!found) return [];
    if (!found.isDirectory() || found.uid !== uid) throw new Error(`${folder} is not a folder of the cache's own uid`);
  }
  const sealed: SealedPack[] = [];
  for (const entry of (await readdir(layout.verified)).sort()) {
    const match = PACK_NAME.exec(entry);
    if (!match) continue;
    const name = `pack-${match[1]}`;
    const files = [`${name}.pack`, `${name}.idx`];
    const sizes: number[] = [];
    for (const file of files) {
      const found = await lstat(join(layout.verified, file)).catch(() => undefined);
      if (!found?.isFile() || found.uid !== uid || found.nlink !== 1 || found.size === 0)
        throw new Error(`${file} is not a verified pack file of the cache's own`);
      sizes.push(found.size);
    }
    const sums: string[] = [];
    for (const file of files) {
      const target = join(layout.packs, file);
      await rename(join(layout.verified, file), target);
      await lchown(target, 0, 0);
      await chmod(target, 0o444);
      sums.push(await sha256Of(target));
    }
    sealed.push({
      name,
      packBytes: sizes[0],
      idxBytes: sizes[1],
      packSha256: sums[0],
      idxSha256: sums[1],
      objects: await objectCount(join(layout.packs, `${name}.idx`)),
    });
  }
  return sealed;
}

export type StoreCheck = { ok: true } | { ok: false; why: string };

/**
 * Whether the published store is what the worker sealed: every pack and index present with the
 * size it had (cheap, on every use), and with `hashes` the SHA-256 of each too (once per worker
 * process per cache: a restarted worker trusts nothing it did not check itself).
 */
export async function checkStore(layout: CacheLayout, meta: CacheMeta, hashes: boolean): Promise<StoreCheck> {
  for (const pack of meta.packs) {
    for (const [ext, bytes, sum] of [
      ['.pack', pack.packBytes, pack.packSha256],
      ['.idx', pack.idxBytes, pack.idxSha256],
    ] as const) {
      const path = join(layout.packs, `${pack.name}${ext}`);
      const found = await stat(path).catch(() => undefined);
      if (!found?.isFile()) return { ok: false, why: `${pack.name}${ext} is missing` };
      if (found.size !== bytes)
        return { ok: false, why: `${pack.name}${ext} has ${found.size} bytes, not the ${bytes} it was sealed with` };
      if (hashes && (await sha256Of(path)) !== sum) return { ok: false, why: `${pack.name}${ext} is not the file that was sealed` };
    }
  }
  return { ok: true };
}

/** The number of objects a pack index (version 2, sealed: the worker's own file) lists: its fanout table's last entry. */
async function objectCount(idx: string): Promise<number | undefined> {
  const file = await open(idx, 'r');
  try {
    const head = Buffer.alloc(8 + 256 * 4);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    if (bytesRead < head.length || head.readUInt32BE(0) !== 0xff744f63 || head.readUInt32BE(4) !== 2) return undefined;
    return head.readUInt32BE(8 + 255 * 4);
  } finally {
    await file.close();
  }
}

export function sha256Of(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
}
