import { ApplicationFailure } from '@temporalio/common';
import type { ModelTurnInput } from '../../workflows/contracts/model';

/** A representative turn: a request, one tool round trip, then a steer. */
export function sampleInput(model: string, overrides: Partial<ModelTurnInput> = {}): ModelTurnInput {
  return {
    model,
    system: 'You are the coding agent.',
    messages: [
      { role: 'user', text: 'List the files' },
      { role: 'assistant', text: 'Looking.', toolCalls: [{ id: 'toolu_1', name: 'bash', input: { command: 'ls' } }] },
      { role: 'tool', results: [{ callId: 'toolu_1', name: 'bash', content: 'README.md\n', isError: false }] },
      { role: 'user', text: 'Also check the tests' },
    ],
    tools: [
      {
        name: 'bash',
        description: 'Run a shell command',
        inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
      },
    ],
    maxTokens: 1024,
    runId: 'run:test:1',
    turn: 2,
    ...overrides,
  };
}

/** Awaits a rejection and returns it as the ApplicationFailure it must be. */
export async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApplicationFailure) return error;
    throw new Error(`expected an ApplicationFailure, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected the call to fail');
}
