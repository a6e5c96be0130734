// The Web API client alone (Bolt re-exports it but loads express and the socket-mode client with it).
import * as webApi from '@slack/web-api';
import { type ApplicationFailure } from '@temporalio/common';
import { failure } from '../../workflows/contracts';

export type SlackWebClient = InstanceType<typeof webApi.WebClient>;

export interface SlackClientOptions {
  token: string;
  /** Web API base URL, ending in `/api/` (the local Slack in tests). */
  apiUrl?: string;
  timeoutMs?: number;
}

/**
 * A Web API client that never retries on its own: Temporal's activity retry is the one
 * retry mechanism, and a 429 surfaces at once so its `Retry-After` becomes the next delay.
 */
export function createSlackWebClient(options: SlackClientOptions): SlackWebClient {
  return new webApi.WebClient(options.token, {
    ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: options.timeoutMs ?? 10_000,
    logLevel: webApi.LogLevel.ERROR,
  });
}

/** How a failed Web API call ended, which decides retry and at-most-once handling. */
export type SlackFailure =
  /** 429: nothing was applied; retry after `retryAfterSeconds`. */
  | { kind: 'rate_limited'; retryAfterSeconds: number }
  /** No answer, a timeout or a 5xx: the call may or may not have been applied. */
  | { kind: 'unknown'; reason: string }
  /** Slack answered with an error that a retry may fix (`internal_error`, ...): nothing applied. */
  | { kind: 'transient'; reason: string }
  /** Slack refused (`channel_not_found`, `not_in_channel`, `invalid_auth`, ...): a retry cannot help. */
  | { kind: 'refused'; reason: string };

const TRANSIENT_PLATFORM_ERRORS = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'ratelimited']);

export function classifySlackError(error: unknown): SlackFailure {
  const coded = error as { code?: string; retryAfter?: number; statusCode?: number; data?: { error?: string }; message?: string };
  switch (coded?.code) {
    case webApi.ErrorCode.RateLimitedError:
      return { kind: 'rate_limited', retryAfterSeconds: Math.max(1, Number(coded.retryAfter) || 1) };
    case webApi.ErrorCode.PlatformError: {
      const reason = coded.data?.error ?? 'unknown_error';
      return TRANSIENT_PLATFORM_ERRORS.has(reason) ? { kind: 'transient', reason } : { kind: 'refused', reason };
    }
    case webApi.ErrorCode.HTTPError:
      return { kind: 'unknown', reason: `HTTP ${coded.statusCode ?? '?'} from Slack` };
    default:
      return { kind: 'unknown', reason: coded?.message ?? String(error) };
  }
}

/** The retryable failure for a call that did not land (or may not have): 429s wait for `Retry-After`. */
export function retryLater(slack: SlackFailure, what: string): ApplicationFailure {
  if (slack.kind === 'rate_limited') {
    return failure('slack_rate_limited', `Slack rate-limited ${what}; retrying after ${slack.retryAfterSeconds}s`, {
      retryable: true,
      nextRetryDelay: slack.retryAfterSeconds * 1000,
    });
  }
  return failure(`slack_${slack.kind}`, `${what} failed: ${slack.reason}`, { retryable: true });
}
