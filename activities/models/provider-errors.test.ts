import { retryAfterMs } from './provider-errors';

describe('retryAfterMs', () => {
  const headers = (values: Record<string, string>) => new Headers(values);

  it('prefers retry-after-ms, then retry-after seconds', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': '1500', 'retry-after': '9' }))).toBe(1500);
    expect(retryAfterMs(headers({ 'retry-after': '2.5' }))).toBe(2500);
  });

  it('reads an HTTP date relative to now', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)).toBe(30_000);
  });

  it('gives no delay when the server named none or nonsense', () => {
    expect(retryAfterMs(headers({}))).toBeUndefined();
    expect(retryAfterMs(headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
