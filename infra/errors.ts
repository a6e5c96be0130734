/**
 * The small set of errors Switchboard raises outside workflow code. Each has a stable
 * `code` that logs, HTTP answers and the CLI can rely on. Workflow code never throws
 * these: it raises `ApplicationFailure` with the same code as its `type`.
 */
export type ErrorCode =
  'config_invalid' | 'binary_not_found' | 'temporal_unreachable' | 'server_start_failed' | 'bundle_missing' | 'port_in_use';

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

/** Print a Switchboard error as one readable block; anything else keeps its message only. */
export function describeError(error: unknown): string {
  if (error instanceof SwitchboardError) return `${error.message}`;
  if (error instanceof Error) return error.message;
  return String(error);
}
