/** One repository cache on a host, as the bounds see it. */
export interface CacheEntry {
  name: string;
  repo: string;
  bytes: number;
  /** Last used (ms since the epoch). */
  usedAt: number;
  packs: number;
  /** A running sandbox binds it now: evicting it would pull objects from under that workspace's git. */
  inUse: boolean;
}

/** `sandbox.repoCache`'s bounds per host. */
export interface CacheBounds {
  /** Every cache of the host together (packs and setup results), in MiB. */
  maxMiB: number;
  /** A cache unused for longer goes. */
  maxAgeDays: number;
  /** A cache past this many packs (one per refresh that brought something) goes and is built again at its next use. */
  maxPacks: number;
}

export interface Eviction {
  name: string;
  repo: string;
  why: string;
}

const DAY_MS = 24 * 60 * 60 * 1_000;

/**
 * Which caches to evict: those unused past the age bound, those with too many packs, then the
 * least recently used until the host is within its size bound. A cache a running sandbox binds
 * is never evicted (it counts towards the size all the same).
 */
export function evictions(entries: readonly CacheEntry[], bounds: CacheBounds, now: number): Eviction[] {
  const out: Eviction[] = [];
  const kept: CacheEntry[] = [];
  for (const entry of entries) {
    if (entry.inUse) kept.push(entry);
    else if (now - entry.usedAt > bounds.maxAgeDays * DAY_MS)
      out.push({ name: entry.name, repo: entry.repo, why: `unused for more than ${bounds.maxAgeDays} days` });
    else if (entry.packs > bounds.maxPacks)
      out.push({
        name: entry.name,
        repo: entry.repo,
        why: `${entry.packs} packs, past the bound of ${bounds.maxPacks}: built again at its next use`,
      });
    else kept.push(entry);
  }
  const limit = bounds.maxMiB * 1024 * 1024;
  let total = kept.reduce((sum, entry) => sum + entry.bytes, 0);
  for (const entry of [...kept].filter((each) => !each.inUse).sort((a, b) => a.usedAt - b.usedAt)) {
    if (total <= limit) break;
    out.push({ name: entry.name, repo: entry.repo, why: `least recently used while the host's caches were over ${bounds.maxMiB} MiB` });
    total -= entry.bytes;
  }
  return out;
}
