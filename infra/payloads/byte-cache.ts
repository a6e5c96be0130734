/**
 * The most recently used byte arrays by key, up to a total size. For content-addressed
 * payloads an entry can never be stale: the key is the hash of the bytes.
 */
export class ByteCache {
  private readonly entries = new Map<string, Uint8Array>();
  private total = 0;

  constructor(readonly limitBytes: number) {}

  get(key: string): Uint8Array | undefined {
    const bytes = this.entries.get(key);
    if (bytes) {
      // Map keeps insertion order: re-inserting marks it the most recent.
      this.entries.delete(key);
      this.entries.set(key, bytes);
    }
    return bytes;
  }

  set(key: string, bytes: Uint8Array): void {
    if (bytes.length > this.limitBytes) return;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.total -= old.length;
    }
    this.entries.set(key, bytes);
    this.total += bytes.length;
    for (const [oldest, value] of this.entries) {
      if (this.total <= this.limitBytes) break;
      this.entries.delete(oldest);
      this.total -= value.length;
    }
  }

  get sizeBytes(): number {
    return this.total;
  }
}
