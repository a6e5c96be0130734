/** Stable codes for the few programming errors agents/ raises (user-facing outcomes are data, not throws). */
export type AgentsErrorCode = 'pipeline_has_no_prompt';

export class AgentsError extends Error {
  constructor(
    readonly code: AgentsErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AgentsError';
  }
}
