/**
 * The small set of errors Switchboard raises outside workflow code. Each has a stable
 * `code` that logs, HTTP answers and the CLI can rely on. Workflow code never throws
 * these: it raises `ApplicationFailure` with the same code as its `type`.
 */
export type ErrorCode = 'config_invalid' | 'binary_not_found' | 'temporal_unreachable' | 'server_start_failed' | 'bundle_missing';

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
    super('config_invalid', `Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
  }
}

/** A Temporal binary could not be found; the message says how to get it. */
export class BinaryNotFoundError extends SwitchboardError {
  constructor(message: string) {
    super('binary_not_found', message);
  }
}

export class TemporalUnreachableError extends SwitchboardError {
  constructor(address: string, cause?: unknown) {
    const reason = cause instanceof Error ? `: ${cause.message}` : '';
    super('temporal_unreachable', `Temporal is not reachable at ${address}${reason}`, { cause });
  }
}

/** Print a Switchboard error as one readable block; anything else keeps its message only. */
export function describeError(error: unknown): string {
  if (error instanceof SwitchboardError) return `${error.message}`;
  if (error instanceof Error) return error.message;
  return String(error);
}
