import type { ToolCall, ToolResult } from '../../contracts/model';

// How a tool's executor answers the model: a result, or a failure as data (never thrown). Apart
// from context.ts so that what executors and the MCP tools share sits below both.

export function ok(call: ToolCall, content: string): ToolResult {
  return { callId: call.id, name: call.name, content };
}

export function fail(call: ToolCall, content: string): ToolResult {
  return { callId: call.id, name: call.name, content, isError: true };
}

/** The message of an activity failure as the model should read it (the cause's, when there is one). */
export function failureMessage(error: unknown): string {
  const failure = error as { message?: string; cause?: { message?: string; type?: string } };
  const cause = failure.cause;
  return cause?.message ? `${cause.type ? `${cause.type}: ` : ''}${cause.message}` : (failure.message ?? String(error));
}

/** The cause's message of an activity failure, else its own. */
export function errorMessage(error: unknown): string {
  const failure = error as { message?: string; cause?: { message?: string } };
  return failure.cause?.message ?? failure.message ?? String(error);
}
