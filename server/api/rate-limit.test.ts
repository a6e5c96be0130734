import { RateLimiter } from './rate-limit';

describe('RateLimiter', () => {
  it('allows a burst, then the rate, and says how long to wait', () => {
    let now = 0;
    const limiter = new RateLimiter({ requestsPerMinute: 60, burst: 3 }, () => now);
    expect([1, 2, 3].map(() => limiter.take('a').ok)).toEqual([true, true, true]);
    expect(limiter.take('a')).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(limiter.take('b').ok).toBe(true); // each token has its own bucket
    now += 1_000;
    expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('a').ok).toBe(false);
  });

  it('gives a token with its own lower rate no more than that at once', () => {
    let now = 0;
    const limiter = new RateLimiter({ requestsPerMinute: 600, burst: 30 }, () => now);
    expect(limiter.take('slow', 1).ok).toBe(true);
    expect(limiter.take('slow', 1)).toEqual({ ok: false, retryAfterSeconds: 60 });
    now += 30_000;
    expect(limiter.take('slow', 1)).toEqual({ ok: false, retryAfterSeconds: 30 });
  });
});
