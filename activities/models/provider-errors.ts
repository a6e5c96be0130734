import { type ApplicationFailure } from '@temporalio/common';
import { failure } from '../../workflows/contracts';
import { type CallContext } from './activity-context';

/** How one provider names itself and its key in error messages. */
export interface ProviderLabel {
  /** `Anthropic`, `OpenAI-compatible API`. */
  name: string;
  keyVariable: string;
  baseUrl: string;
  model: string;
}

/** The SDK errors we read, by shape: both SDKs' `APIError` carry a status and response headers. */
interface HttpErrorShape {
  status?: number;
  headers?: { get(name: string): string | null };
  message: string;
  name: string;
}

const RETRYABLE_STATUSES = new Set([408, 409, 429]);

/**
 * Turns an SDK failure into what Temporal should do with it. Rate limits, overloads, 5xx,
 * timeouts and dropped connections are retryable (honouring `retry-after`); requests the
 * API rejected and keys it refused are non-retryable, with a message that names the fix.
 * A cancellation is passed through as Temporal's own CancelledFailure.
 */
export function toActivityFailure(error: unknown, label: ProviderLabel, call: CallContext): Error {
  if (call.signal?.aborted) return call.signal.reason ?? error;
  if (!(error instanceof Error)) return new Error(`${label.name} call failed: ${String(error)}`);
  const http = error as HttpErrorShape;
  const status = typeof http.status === 'number' ? http.status : undefined;
  if (status === undefined) {
    // Connection refused or reset, timeouts, aborted sockets: the network may recover.
    const timedOut = /timeout|timed out/i.test(`${http.name} ${http.message}`);
    return failure(
      timedOut ? 'model_timeout' : 'model_unreachable',
      `${label.name} at ${label.baseUrl} ${timedOut ? 'timed out' : 'could not be reached'}: ${error.message}`,
      { retryable: true, cause: error },
    );
  }
  if (status === 401 || status === 403) {
    return failure('model_auth_failed', `${label.name} refused the API key (${status}): check ${label.keyVariable}. ${error.message}`, {
      cause: error,
    });
  }
  if (RETRYABLE_STATUSES.has(status) || status >= 500) {
    const delay = retryAfterMs(http.headers);
    return failure(
      status === 429 ? 'model_rate_limited' : 'model_unavailable',
      `${label.name} is unavailable for ${label.model} (${status}); Temporal will retry. ${error.message}`,
      { retryable: true, cause: error, ...(delay !== undefined ? { nextRetryDelay: delay } : {}) },
    );
  }
  const hint =
    status === 404 ? `check the model id '${label.model}' and the base URL ${label.baseUrl}` : 'the request was not accepted as sent';
  return failure('model_bad_request', `${label.name} rejected the request for ${label.model} (${status}): ${error.message}; ${hint}`, {
    cause: error,
  });
}

/** The server's requested wait, from `retry-after-ms` or `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: HttpErrorShape['headers'], now = Date.now()): number | undefined {
  if (!headers || typeof headers.get !== 'function') return undefined;
  const milliseconds = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.ceil(milliseconds);
  const raw = headers.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** The missing-key failure: nothing will change until someone sets the variable. */
export function missingKeyFailure(label: ProviderLabel, extra = ''): ApplicationFailure {
  return failure('model_key_missing', `${label.keyVariable} is not set: set it in the worker's environment to use ${label.model}${extra}`);
}
