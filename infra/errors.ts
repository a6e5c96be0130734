import type { FailureCode } from '../workflows/contracts';

/**
 * The errors Switchboard raises outside workflow and activity code. Each has a stable `code`
 * that logs, HTTP answers and the CLI can rely on: one of the failure codes
 * (workflows/contracts/failures.ts) or, for answers to an API caller, an `ApiErrorCode` below. Workflows and activities never throw these: they raise
 * an `ApplicationFailure` with a code from the same list as its `type` (`failure()`).
 */
export type ErrorCode = FailureCode | ApiErrorCode;

/**
 * The codes the HTTP API (as RFC 9457 problem+json), the MCP tools and the CLI answer a
 * caller with, each with its HTTP status. An access refusal is `access_refused` and names
 * the rule's own code (`agents/access.ts`: `agent_restricted`, `self_serve_shell`, …) in
 * `refusal`; a refusal for any other reason (no request text, no repository) is
 * `request_refused`, with `request_missing` / `repo_missing` / `agent_unknown`. A request
 * refused because this deployment cannot isolate commands is the server's state, not the
 * caller's mistake: `sandbox_unavailable`, 503; so is GitHub's silence when a repository run's
 * repository is vetted (`repo_unverified`): `github_unavailable`, 503.
 */
export const API_ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  access_refused: 403,
  not_found: 404,
  method_not_allowed: 405,
  job_finished: 409,
  steer_rejected: 409,
  idempotency_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  request_refused: 422,
  rate_limited: 429,
  internal_error: 500,
  temporal_unavailable: 503,
  sandbox_unavailable: 503,
  github_unavailable: 503,
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

export class SwitchboardError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A configuration value is wrong; `issues` name each key path and what was expected. */
export class ConfigError extends SwitchboardError {
  constructor(readonly issues: string[]) {
    // One line for the usual single mistake; a line per key when there are several.
    super(
      'config_invalid',
      issues.length === 1 ? `Invalid configuration: ${issues[0]}` : `Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`,
    );
  }
}

/** A Temporal binary could not be found; the message says how to get it. */
export class BinaryNotFoundError extends SwitchboardError {
  constructor(message: string) {
    super('binary_not_found', message);
  }
}

/** Temporal does not answer at an address; the message names it, why, and (when given) the fix. */
export class TemporalUnreachableError extends SwitchboardError {
  /** Why, in plain words (`connection refused: nothing listens there`). */
  readonly reason?: string;

  constructor(
    readonly address: string,
    cause?: unknown,
    options: { reason?: string; fix?: string } = {},
  ) {
    const reason = options.reason ?? (cause instanceof Error ? cause.message.split('\n')[0] : undefined);
    const fix = options.fix ? `: ${options.fix}` : '';
    super('temporal_unreachable', `Temporal is not reachable at ${address}${reason ? ` (${reason})` : ''}${fix}`, { cause });
    this.reason = reason;
  }
}

/**
 * An answer to an API or MCP caller: a stable code, a one-line message (never a stack) and
 * extension members for the problem document (`errors` for bad fields, `refusal`, `rule`…).
 */
export class ApiError extends SwitchboardError {
  constructor(
    override readonly code: ApiErrorCode,
    message: string,
    readonly extensions: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(code, message);
  }

  get status(): number {
    return API_ERROR_STATUS[this.code];
  }
}

/** Print a Switchboard error as one readable block; anything else keeps its message only. */
export function describeError(error: unknown): string {
  if (error instanceof SwitchboardError) return `${error.message}`;
  if (error instanceof Error) return error.message;
  return String(error);
}
