import type { ChatMessage } from '../contracts/model';

/** The longest one-line report of a command that passed. */
export const PASSED_LINE_MAX = 200;

/**
 * What a command runner (a role with `result: command`, 001's `task`) answers its parent: one
 * line when its last command succeeded (its own line, else the command and "passed"), and that
 * command's whole result when it failed, so verbose success stays out of the parent's
 * conversation and failure evidence reaches it whole. Decided by code from the conversation, not
 * left to the model's obedience.
 */
export function commandReport(messages: readonly ChatMessage[], finalText: string): string {
  const found = lastCommand(messages);
  const own =
    finalText
      .split('\n')
      .find((line) => line.trim())
      ?.trim() ?? '';
  if (!found) return own || 'No command was run.';
  if (!found.failed) {
    const line = own || `\`${found.command}\` passed.`;
    return line.length > PASSED_LINE_MAX ? `${line.slice(0, PASSED_LINE_MAX - 1)}…` : line;
  }
  return `\`${found.command}\` failed:\n${found.output}`;
}

function lastCommand(messages: readonly ChatMessage[]): { command: string; failed: boolean; output: string } | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message.role !== 'tool') continue;
    for (let k = message.results.length - 1; k >= 0; k -= 1) {
      const result = message.results[k];
      if (result.name !== 'bash') continue;
      const call = callFor(messages, index, result.callId);
      return { command: call ?? '(the command)', failed: result.isError === true, output: result.content };
    }
  }
  return undefined;
}

function callFor(messages: readonly ChatMessage[], before: number, callId: string): string | undefined {
  for (let index = before - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message.role !== 'assistant') continue;
    const call = message.toolCalls.find((candidate) => candidate.id === callId);
    const command = (call?.input as { command?: unknown } | undefined)?.command;
    return typeof command === 'string' ? command : undefined;
  }
  return undefined;
}
