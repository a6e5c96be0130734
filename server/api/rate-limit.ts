/**
 * A token bucket per API token: `burst` requests at once, refilled at `requestsPerMinute`.
 * In memory, per process: several front-end processes each allow the rate (say so in the docs
 * rather than share state they do not otherwise need).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly defaults: { requestsPerMinute: number; burst: number },
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one request for `key`; when none is left, how many seconds until one is. */
  take(key: string, requestsPerMinute = this.defaults.requestsPerMinute): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const perMs = requestsPerMinute / 60_000;
    // A token allowed fewer requests a minute than the burst gets that many at once, no more.
    const capacity = Math.max(1, Math.min(this.defaults.burst, requestsPerMinute));
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: capacity, at: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1_000)) };
  }
}
