import { MAX_REQUEST_SKEW_SECONDS, requestTimestampProblem } from './request-age';

describe('the Slack request timestamp', () => {
  const now = 1_700_000_000_000;
  const seconds = now / 1000;

  it.each([0, MAX_REQUEST_SKEW_SECONDS, -MAX_REQUEST_SKEW_SECONDS])('accepts %i s from now', (skew) => {
    expect(requestTimestampProblem(String(seconds + skew), now)).toBeUndefined();
  });

  it.each([
    [MAX_REQUEST_SKEW_SECONDS + 1, /301 s in the future/],
    [600, /600 s in the future/],
    [86_400, /86400 s in the future/],
    [-(MAX_REQUEST_SKEW_SECONDS + 1), /301 s in the past/],
  ])('refuses %i s from now', (skew, reason) => {
    expect(requestTimestampProblem(String(seconds + skew), now)).toMatch(reason);
  });

  it.each([undefined, '', 'abc', '1e9', '-1', '1700000000.5', '9'.repeat(13)])('refuses a malformed header %p', (header) => {
    expect(requestTimestampProblem(header, now)).toMatch(/missing or malformed/);
  });
});
