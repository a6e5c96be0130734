import { ByteCache } from './byte-cache';

describe('ByteCache', () => {
  it('keeps the most recently used entries within its size, and refuses one larger than all of it', () => {
    const cache = new ByteCache(10);
    cache.set('a', new Uint8Array(4));
    cache.set('b', new Uint8Array(4));
    expect(cache.get('a')).toHaveLength(4); // a is now the most recent
    cache.set('c', new Uint8Array(4)); // 12 > 10: the least recent (b) goes
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
    expect(cache.sizeBytes).toBe(8);
    cache.set('huge', new Uint8Array(11));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.sizeBytes).toBe(8);
    cache.set('a', new Uint8Array(2));
    expect(cache.sizeBytes).toBe(6);
  });
});
