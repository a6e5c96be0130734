import { failure } from '../../workflows/contracts';

/** The parts of an Octokit `RequestError` we look at (duck-typed: the class is ESM-only). */
interface HttpFailure {
  status: number;
  message: string;
  response?: { headers?: Record<string, string | number | undefined> };
}

/** An error carrying an HTTP status from GitHub (as opposed to a network failure). */
export function httpStatusOf(error: unknown): number | undefined {
  const status = (error as Partial<HttpFailure> | null)?.status;
  return typeof status === 'number' && status > 0 ? status : undefined;
}

function header(error: unknown, name: string): string | undefined {
  const value = (error as HttpFailure).response?.headers?.[name];
  return value === undefined ? undefined : String(value);
}

/**
 * When GitHub says "rate limited", how long to wait: `retry-after` (secondary limits), else
 * until `x-ratelimit-reset` when the remaining budget is zero. Undefined for any other error.
 */
export function rateLimitDelayMs(error: unknown, now = Date.now()): number | undefined {
  const status = httpStatusOf(error);
  if (status !== 403 && status !== 429) return undefined;
  const retryAfter = header(error, 'retry-after');
  if (retryAfter !== undefined && Number.isFinite(Number(retryAfter))) return Math.max(1000, Number(retryAfter) * 1000);
  if (header(error, 'x-ratelimit-remaining') === '0') {
    const reset = Number(header(error, 'x-ratelimit-reset'));
    if (Number.isFinite(reset)) return Math.max(1000, reset * 1000 - now + 1000);
    return 60_000;
  }
  return status === 429 ? 60_000 : undefined;
}

/** True when the request never reached a decision at GitHub we can see: network error, timeout or 5xx. */
export function isUnknownOutcome(error: unknown): boolean {
  const status = httpStatusOf(error);
  return status === undefined || status >= 500;
}

/**
 * Turns a failed read into what Temporal should do with it: rate limits wait until the
 * reset, GitHub's silence is retried, and answers a retry cannot change are non-retryable
 * with a stable type the run can show the model.
 */
export function toReadFailure(error: unknown, what: string): Error {
  const delay = rateLimitDelayMs(error);
  if (delay !== undefined) {
    return failure('github_rate_limited', `GitHub rate limit reached while reading ${what}; retrying after ${Math.ceil(delay / 1000)} s`, {
      retryable: true,
      nextRetryDelay: delay,
    });
  }
  const status = httpStatusOf(error);
  const reason = error instanceof Error ? error.message : String(error);
  if (status === undefined || status >= 500) {
    return failure('github_unavailable', `GitHub did not answer reading ${what}: ${reason}`, { retryable: true });
  }
  if (status === 404) return failure('github_not_found', `${what} was not found (or this identity cannot see it)`);
  if (status === 401 || status === 403) {
    return failure('github_forbidden', `this run's GitHub identity may not read ${what}: ${reason}`);
  }
  return failure('github_bad_request', `GitHub refused reading ${what} (${status}): ${reason}`);
}

/** Wraps a read so every failure leaves as `toReadFailure`. */
export async function reading<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw toReadFailure(error, what);
  }
}
