import { chatCompletion, dropConnection, openaiError, startOpenAIServer, type WireServer } from '../../test/emulators/openai-server';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createModelActivities, type ModelActivityDeps } from './index';
import { promptCacheKeyFor } from './openai-mapping';
import { failureOf, sampleInput } from './test-support';

describe('openai provider against a local chat-completions server', () => {
  let server: WireServer;
  const env = { OPENAI_API_KEY: 'sk-openai-test' };
  const activities = (extra: Partial<ModelActivityDeps> = {}) =>
    createModelActivities({ baseDir: __dirname, env, openaiBaseUrl: `${server.url}/v1`, requestTimeoutMs: 2_000, ...extra });

  beforeEach(async () => {
    server = await startOpenAIServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it("sends the system prompt, messages with tool calls and results, functions, the token cap, the key and the run's cache key", async () => {
    server.enqueue(chatCompletion({ text: 'Done.' }));
    const input = sampleInput('openai:gpt-4.1', { effort: 'high' });
    input.messages.push(
      { role: 'assistant', text: '', toolCalls: [{ id: 'call_b', name: 'bash', input: { command: 'npm test' } }] },
      { role: 'tool', results: [{ callId: 'call_b', name: 'bash', content: 'exit 1', isError: true }] },
    );
    await activities().modelTurn(input);

    const [request] = server.requests;
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer sk-openai-test');
    expect(request?.body).toEqual({
      model: 'gpt-4.1',
      max_completion_tokens: 1024,
      messages: [
        { role: 'system', content: 'You are the coding agent.' },
        { role: 'user', content: 'List the files' },
        {
          role: 'assistant',
          content: 'Looking.',
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'README.md\n' },
        { role: 'user', content: 'Also check the tests' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_b', type: 'function', function: { name: 'bash', arguments: '{"command":"npm test"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_b', content: 'Error: exit 1' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'bash',
            description: 'Run a shell command',
            parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
          },
        },
      ],
      prompt_cache_key: promptCacheKeyFor('run:test:1'),
    });
  });

  it('keeps one cache key per run, short and naming nothing, and none when configured off', async () => {
    const key = promptCacheKeyFor('run:thread:slack:T1:C1:1700000000.000100:1');
    expect(key).toMatch(/^switchboard-[0-9a-f]{32}$/);
    expect(promptCacheKeyFor('run:thread:slack:T1:C1:1700000000.000100:1')).toBe(key);
    expect(promptCacheKeyFor('run:thread:slack:T1:C1:1700000000.000100:2')).not.toBe(key);
    server.enqueue(chatCompletion({ text: 'ok' }));
    await activities({ openaiPromptCacheKey: false }).modelTurn(sampleInput('openai:gpt-4.1'));
    expect(server.requests[0]?.body.prompt_cache_key).toBeUndefined();
  });

  it('uses max_tokens and reasoning_effort when configured for a server that wants them', async () => {
    server.enqueue(chatCompletion({ text: 'ok' }));
    await activities({ openaiMaxTokensField: 'max_tokens', openaiReasoningEffort: true }).modelTurn(
      sampleInput('openai:o4-mini', { effort: 'medium', tools: [] }),
    );
    const body = server.requests[0]?.body;
    expect([body.max_tokens, body.max_completion_tokens, body.reasoning_effort, body.tools]).toEqual([
      1024,
      undefined,
      'medium',
      undefined,
    ]);
  });

  it('maps text, tool calls (parsed arguments), finish reason and usage with cached tokens apart', async () => {
    server.enqueue(
      chatCompletion({
        text: 'Checking.',
        toolCalls: [
          { id: 'call_1', name: 'bash', arguments: '{"command":"ls test"}' },
          { id: 'call_2', name: 'read_file', arguments: '{not json' },
        ],
        usage: { prompt_tokens: 1200, completion_tokens: 30, cached_tokens: 1000 },
      }),
    );
    const result = await activities().modelTurn(sampleInput('openai:gpt-4.1'));
    expect(result).toEqual({
      text: 'Checking.',
      toolCalls: [
        { id: 'call_1', name: 'bash', input: { command: 'ls test' } },
        { id: 'call_2', name: 'read_file', input: '{not json' },
      ],
      stopReason: 'tool_use',
      usage: { inputTokens: 200, outputTokens: 30, cacheReadTokens: 1000 },
      model: 'gpt-4.1-2025-04-14',
    });
  });

  it('maps a length cut-off to max_tokens', async () => {
    server.enqueue(chatCompletion({ text: 'partial', finishReason: 'length' }));
    const result = await activities().modelTurn(sampleInput('openai:gpt-4.1'));
    expect(result.stopReason).toBe('max_tokens');
  });

  it('throws 429 as retryable with the retry-after delay', async () => {
    server.enqueue(openaiError(429, 'Rate limit reached for gpt-4.1', { retryAfter: 3 }));
    const failure = await failureOf(activities().modelTurn(sampleInput('openai:gpt-4.1')));
    expect([failure.nonRetryable, failure.type, failure.nextRetryDelay]).toEqual([false, 'model_rate_limited', 3000]);
    expect(server.requests).toHaveLength(1);
  });

  it('throws 500 and a dropped connection as retryable', async () => {
    server.enqueue(openaiError(500, 'The server had an error'), dropConnection());
    const serverError = await failureOf(activities().modelTurn(sampleInput('openai:gpt-4.1')));
    expect([serverError.nonRetryable, serverError.type]).toEqual([false, 'model_unavailable']);
    const dropped = await failureOf(activities().modelTurn(sampleInput('openai:gpt-4.1')));
    expect([dropped.nonRetryable, dropped.type]).toEqual([false, 'model_unreachable']);
  });

  it('throws 400 and 422 as non-retryable bad requests with the API message', async () => {
    server.enqueue(openaiError(400, "Invalid value for 'tools'"), openaiError(422, 'Unprocessable'));
    const badRequest = await failureOf(activities().modelTurn(sampleInput('openai:gpt-4.1')));
    expect([badRequest.nonRetryable, badRequest.type]).toEqual([true, 'model_bad_request']);
    expect(badRequest.message).toContain("Invalid value for 'tools'");
    const unprocessable = await failureOf(activities().modelTurn(sampleInput('openai:gpt-4.1')));
    expect(unprocessable.nonRetryable).toBe(true);
  });

  it('throws a refused key (401) as non-retryable naming OPENAI_API_KEY', async () => {
    server.enqueue(openaiError(401, 'Incorrect API key provided'));
    const failure = await failureOf(activities().modelTurn(sampleInput('openai:gpt-4.1')));
    expect([failure.nonRetryable, failure.type]).toEqual([true, 'model_auth_failed']);
    expect(failure.message).toContain('check OPENAI_API_KEY');
  });

  it('refuses to call without a key, before any request', async () => {
    const failure = await failureOf(activities({ env: {} }).modelTurn(sampleInput('openai:gpt-4.1')));
    expect([failure.nonRetryable, failure.type]).toEqual([true, 'model_key_missing']);
    expect(failure.message).toMatch(/^OPENAI_API_KEY is not set/);
    expect(server.requests).toHaveLength(0);
  });

  it('aborts the HTTP request when the activity is cancelled', async () => {
    server.enqueue(chatCompletion({ text: 'never read', delayMs: 20_000 }));
    const environment = new MockActivityEnvironment();
    const pending = environment.run(activities().modelTurn, sampleInput('openai:gpt-4.1'));
    setTimeout(() => environment.cancel(), 150);
    await expect(pending).rejects.toBeInstanceOf(CancelledFailure);
  });
});
