import { ApplicationFailure } from '@temporalio/common';
import { parseModelId } from './model-id';

describe('parseModelId', () => {
  it('splits provider and id at the first colon', () => {
    expect(parseModelId('anthropic:claude-sonnet-4-5')).toEqual({ provider: 'anthropic', id: 'claude-sonnet-4-5' });
    expect(parseModelId('openai:qwen2.5:7b')).toEqual({ provider: 'openai', id: 'qwen2.5:7b' });
    expect(parseModelId('scripted:/abs/path.yaml')).toEqual({ provider: 'scripted', id: '/abs/path.yaml' });
  });

  it('gives bare claude and gpt ids their provider', () => {
    expect(parseModelId('claude-sonnet-4-5')).toEqual({ provider: 'anthropic', id: 'claude-sonnet-4-5' });
    expect(parseModelId('gpt-4.1')).toEqual({ provider: 'openai', id: 'gpt-4.1' });
    expect(parseModelId('o4-mini')).toEqual({ provider: 'openai', id: 'o4-mini' });
  });

  it.each(['llama3', 'gemini:pro', 'anthropic:', ':x', ''])('refuses %p as non-retryable', (model) => {
    let thrown: unknown;
    try {
      parseModelId(model);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApplicationFailure);
    expect((thrown as ApplicationFailure).nonRetryable).toBe(true);
    expect((thrown as ApplicationFailure).message).toContain(`Model '${model}'`);
  });
});
