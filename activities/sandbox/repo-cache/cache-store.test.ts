import {
  chownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheLayout, type CacheLayout } from './cache-layout';
import { checkStore, ensureCacheFolders, sealVerified, type CacheMeta } from './cache-store';

/**
 * The worker's only touch of what a cache's sandbox wrote: sealing verified packs into the store.
 * Run as root (the worker is): it chowns and must refuse anything but the uid's own real files.
 */
describe('sealing a cache’s verified packs', () => {
  const uid = 1_999_999_001;
  let dataDir: string;
  let layout: CacheLayout;
  const hash = 'ab'.repeat(20);
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-seal-'));
    layout = cacheLayout(dataDir, 'acme/app');
    await ensureCacheFolders(layout);
    for (const folder of [layout.workspace.data, layout.workspace.work, join(layout.workspace.work, 'verified'), layout.verified]) {
      mkdirSync(folder, { recursive: true });
      chownSync(folder, uid, uid);
    }
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));
  const plant = (name: string, content: string, owner = uid) => {
    writeFileSync(join(layout.verified, name), content);
    chownSync(join(layout.verified, name), owner, owner);
  };

  it('moves a pack and its index into the store, root’s and read-only, with their sizes and hashes', async () => {
    plant(`pack-${hash}.pack`, 'pack bytes');
    plant(`pack-${hash}.idx`, 'index bytes');
    plant('incoming-1.idx', 'half an index');
    const sealed = await sealVerified(layout, uid);
    expect(sealed).toEqual([expect.objectContaining({ name: `pack-${hash}`, packBytes: 10, idxBytes: 11 })]);
    expect(readdirSync(layout.packs).sort()).toEqual([`pack-${hash}.idx`, `pack-${hash}.pack`]);
    for (const entry of readdirSync(layout.packs)) {
      const found = lstatSync(join(layout.packs, entry));
      expect([found.uid, found.mode & 0o777]).toEqual([0, 0o444]);
    }
    const meta: CacheMeta = { repo: 'acme/app', createdAt: '', usedAt: '', packs: sealed, tips: [], setups: [] };
    expect(await checkStore(layout, meta, true)).toEqual({ ok: true });
    truncateSync(join(layout.packs, `pack-${hash}.pack`), 3);
    expect(await checkStore(layout, meta, false)).toEqual({
      ok: false,
      why: `pack-${hash}.pack has 3 bytes, not the 10 it was sealed with`,
    });
  });

  it('refuses a folder on the way that is a link, and files that are links, another’s, or linked elsewhere', async () => {
    plant(`pack-${hash}.pack`, 'pack bytes');
    symlinkSync('/etc/passwd', join(layout.verified, `pack-${hash}.idx`));
    await expect(sealVerified(layout, uid)).rejects.toThrow(/not a verified pack file/);
    rmSync(join(layout.verified, `pack-${hash}.idx`));
    plant(`pack-${hash}.idx`, 'index', 0);
    await expect(sealVerified(layout, uid)).rejects.toThrow(/not a verified pack file/);
    rmSync(join(layout.verified, `pack-${hash}.idx`));
    plant(`pack-${hash}.idx`, 'index');
    linkSync(join(layout.verified, `pack-${hash}.idx`), join(layout.workspace.work, 'elsewhere'));
    await expect(sealVerified(layout, uid)).rejects.toThrow(/not a verified pack file/);
    rmSync(join(layout.workspace.work, 'verified'), { recursive: true });
    symlinkSync(dataDir, join(layout.workspace.work, 'verified'));
    await expect(sealVerified(layout, uid)).rejects.toThrow(/not a folder of the cache's own uid/);
    expect(readdirSync(layout.packs)).toEqual([]);
  });
});
