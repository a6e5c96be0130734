import { Context } from '@temporalio/activity';
import { httpStatusOf, isUnknownOutcome, rateLimitDelayMs } from './failures';
import type { EffectResult, IdentityScope } from '../../workflows/contracts/github';

/** The hidden marker an at-most-once write carries, so a retry can find it. */
export function effectMarker(effectKey: string): string {
  // `--` cannot appear inside an HTML comment; keys are ours, but stay safe.
  return `<!-- switchboard-effect: ${effectKey.replace(/--/g, '-\u2010')} -->`;
}

/** The body as sent: the text, then the marker on its own line. */
export function withMarker(body: string, effectKey: string): string {
  const marker = effectMarker(effectKey);
  return body.includes(marker) ? body : `${body.trimEnd()}\n\n${marker}`;
}

export function hasMarker(body: string | null | undefined, effectKey: string): boolean {
  return Boolean(body?.includes(effectMarker(effectKey)));
}

/**
 * Is this a retry? Inside an activity, Temporal's attempt number says so (it survives a worker
 * dying mid-request); a caller outside an activity passes `attempt` explicitly.
 */
export function isRetry(explicitAttempt: number | undefined): boolean {
  if (explicitAttempt !== undefined) return explicitAttempt > 1;
  try {
    return Context.current().info.attempt > 1;
  } catch {
    return false;
  }
}

/** The answer for a retry whose earlier attempt left no trace we can find. */
export function unconfirmed(effectKey: string, what: string): EffectResult {
  return {
    status: 'unconfirmed',
    effectKey,
    reason: `an earlier attempt to ${what} lost its result and no trace of it was found; not sent again`,
  };
}

/**
 * The answer to a write GitHub decided on: a scope or permission problem, a missing object,
 * a rate limit (nothing was applied, so the caller may ask again later), a validation error.
 * An unknown outcome (network, timeout, 5xx) is thrown so Temporal retries and the retry looks
 * for the marker.
 */
export function refusalOrThrow(error: unknown, effectKey: string, what: string, identity: IdentityScope): EffectResult {
  if (isUnknownOutcome(error)) throw error;
  const status = httpStatusOf(error);
  const detail = error instanceof Error ? error.message : String(error);
  const retryAfterMs = rateLimitDelayMs(error);
  if (retryAfterMs !== undefined) {
    return {
      status: 'refused',
      effectKey,
      code: 'rate_limited',
      retryAfterMs,
      reason: `GitHub rate limit reached; nothing was written (${what})`,
    };
  }
  if (status === 401 || status === 403) {
    return {
      status: 'refused',
      effectKey,
      code: 'forbidden',
      reason: `GitHub refused to ${what} with this run's '${identity}' identity (HTTP ${status}: ${detail})`,
    };
  }
  if (status === 404) return { status: 'refused', effectKey, code: 'not_found', reason: `cannot ${what}: not found (${detail})` };
  return { status: 'refused', effectKey, code: 'invalid', reason: `GitHub refused to ${what} (HTTP ${status}: ${detail})` };
}

/** Runs a write's whole body so every GitHub answer becomes a result and only unknown outcomes throw. */
export async function guarded(
  effectKey: string,
  what: string,
  identity: IdentityScope,
  write: () => Promise<EffectResult>,
): Promise<EffectResult> {
  try {
    return await write();
  } catch (error) {
    return refusalOrThrow(error, effectKey, what, identity);
  }
}
