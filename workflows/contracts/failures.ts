import { ApplicationFailure, type Duration } from '@temporalio/common';

/**
 * Every failure type Switchboard raises, in one list: `ApplicationFailure` types from
 * workflows and activities, and the codes of `SwitchboardError` outside them (infra/errors.ts).
 * Logs, the CLI, retry policies and tests can rely on these strings; add a code here first.
 */
export const FAILURE_CODES = [
  // Start-up and configuration (SwitchboardError in infra/, server/, cli/).
  'config_invalid',
  'binary_not_found',
  'temporal_unreachable',
  'server_start_failed',
  'bundle_missing',
  'port_in_use',
  // Refusals by workflows.
  'steer_rejected',
  'agent_unknown',
  'repo_agent_not_allowed',
  'plan_invalid',
  'resend_refused',
  'board_change_refused',
  // Bad activity input.
  'invalid_input',
  'invalid_repo',
  'invalid_push',
  // Sandbox, git and units.
  'sandbox_unavailable',
  'workspace_lost',
  'git_failed',
  'git_push_failed',
  'unit_not_found',
  // GitHub reads.
  'github_no_credential',
  'github_rate_limited',
  'github_unavailable',
  'github_not_found',
  'github_forbidden',
  'github_bad_request',
  // Model providers.
  'model_unknown',
  'model_script_invalid',
  'model_script_refused',
  'model_key_missing',
  'model_auth_failed',
  'model_bad_request',
  'model_rate_limited',
  'model_unavailable',
  'model_timeout',
  'model_unreachable',
  // Slack writes (one per SlackFailure kind).
  'slack_rate_limited',
  'slack_transient',
  'slack_refused',
  'slack_unknown',
] as const;

export type FailureCode = (typeof FAILURE_CODES)[number];

export interface FailureOptions {
  /** Temporal may retry it (default false: a retry cannot change the answer). */
  retryable?: boolean;
  /** For a retryable failure: wait this long before the next attempt (a rate limit's reset). */
  nextRetryDelay?: Duration;
  cause?: Error;
}

/** An `ApplicationFailure` whose type is one of our codes; thrown by workflows and activities alike. */
export function failure(code: FailureCode, message: string, options: FailureOptions = {}): ApplicationFailure {
  return ApplicationFailure.create({
    message,
    type: code,
    nonRetryable: !options.retryable,
    ...(options.nextRetryDelay !== undefined ? { nextRetryDelay: options.nextRetryDelay } : {}),
    ...(options.cause ? { cause: options.cause } : {}),
  });
}
