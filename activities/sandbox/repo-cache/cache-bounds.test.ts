import { evictions, type CacheEntry } from './cache-bounds';

const DAY = 24 * 60 * 60 * 1_000;
const MIB = 1024 * 1024;
const now = 100 * DAY;
const entry = (name: string, usedDaysAgo: number, mib: number, extra: Partial<CacheEntry> = {}): CacheEntry => ({
  name,
  repo: `acme/${name}`,
  bytes: mib * MIB,
  usedAt: now - usedDaysAgo * DAY,
  packs: 1,
  inUse: false,
  ...extra,
});
const bounds = { maxMiB: 100, maxAgeDays: 14, maxPacks: 50 };

describe('repository cache bounds', () => {
  it('evicts nothing within the size, age and pack bounds', () => {
    expect(evictions([entry('a', 1, 40), entry('b', 13, 60)], bounds, now)).toEqual([]);
  });

  it('evicts the least recently used first until the host is within its size', () => {
    const found = evictions([entry('new', 0, 50), entry('old', 5, 40), entry('older', 9, 30)], bounds, now);
    expect(found.map((each) => each.name)).toEqual(['older']);
    expect(found[0].why).toMatch(/least recently used .* over 100 MiB/);
    expect(evictions([entry('new', 0, 90), entry('old', 5, 40), entry('older', 9, 30)], bounds, now).map((each) => each.name)).toEqual([
      'older',
      'old',
    ]);
  });

  it('evicts a cache unused past the age bound, and one with too many packs, whatever the size', () => {
    const found = evictions([entry('stale', 15, 1), entry('fragmented', 1, 1, { packs: 51 }), entry('fine', 2, 1)], bounds, now);
    expect(found).toEqual([
      { name: 'stale', repo: 'acme/stale', why: 'unused for more than 14 days' },
      expect.objectContaining({ name: 'fragmented', why: expect.stringMatching(/51 packs, past the bound of 50/) }),
    ]);
  });

  it('never evicts a cache a running sandbox binds, but counts its size', () => {
    const found = evictions([entry('busy', 30, 90, { inUse: true }), entry('idle', 1, 20)], bounds, now);
    expect(found.map((each) => each.name)).toEqual(['idle']);
    expect(evictions([entry('busy', 30, 200, { inUse: true })], bounds, now)).toEqual([]);
  });
});
