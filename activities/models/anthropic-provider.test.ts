import {
  anthropicError,
  anthropicKeyOf,
  anthropicMessage,
  dropConnection,
  startAnthropicServer,
  type WireServer,
} from '../../test/emulators/anthropic-server';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createModelActivities } from './index';
import { failureOf, sampleInput } from './test-support';

describe('anthropic provider against a local Messages API', () => {
  let server: WireServer;
  const env = { ANTHROPIC_API_KEY: 'sk-ant-test-key' };
  const activities = () => createModelActivities({ baseDir: __dirname, env, anthropicBaseUrl: server.url, requestTimeoutMs: 2_000 });

  beforeEach(async () => {
    server = await startAnthropicServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('sends system, tools, tool results, cache breakpoints with the TTL, max_tokens, model and key', async () => {
    server.enqueue(anthropicMessage({ text: 'Done.' }));
    await activities().modelTurn(sampleInput('anthropic:claude-sonnet-4-6', { cacheTtl: '1h', effort: 'low' }));

    const [request] = server.requests;
    expect(request?.path).toBe('/v1/messages');
    expect(request && anthropicKeyOf(request)).toBe('sk-ant-test-key');
    expect(request?.headers['anthropic-version']).toBeDefined();
    expect(request?.body).toEqual({
      model: 'claude-sonnet-4-6',
      max_tokens: 1024,
      system: [{ type: 'text', text: 'You are the coding agent.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      tools: [
        {
          name: 'bash',
          description: 'Run a shell command',
          input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
        },
      ],
      output_config: { effort: 'low' },
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'List the files' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Looking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } },
          ],
        },
        {
          // The tool results and the steer that followed them share one user message, results first.
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'README.md\n' },
            { type: 'text', text: 'Also check the tests', cache_control: { type: 'ephemeral', ttl: '1h' } },
          ],
        },
      ],
    });
  });

  it('reports the 1-hour cache writes apart and prices them at 2× the input (Anthropic’s rule)', async () => {
    const usage = { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 5_000, cache_creation_input_tokens: 1_000 };
    server.enqueue(
      anthropicMessage({
        text: 'a',
        usage: { ...usage, cache_creation: { ephemeral_5m_input_tokens: 400, ephemeral_1h_input_tokens: 600 } },
      }),
      anthropicMessage({ text: 'b', usage }),
    );
    const priced = createModelActivities({
      baseDir: __dirname,
      env,
      anthropicBaseUrl: server.url,
      prices: { 'anthropic:*': { input: 3, output: 15 } },
    });
    const reported = await priced.modelTurn(sampleInput('anthropic:claude-sonnet-4-6', { cacheTtl: '1h' }));
    expect(reported.usage).toEqual({
      inputTokens: 100,
      outputTokens: 10,
      cacheReadTokens: 5_000,
      cacheWriteTokens: 1_000,
      cacheWrite1hTokens: 600,
    });
    // 100*3 + 10*15 + 5000*0.3 + 400*3.75 + 600*6 = 7050 micro-dollars; with no cache: 6100*3 + 150 = 18450.
    expect([reported.costUsd, reported.costWithoutCacheUsd]).toEqual([0.00705, 0.01845]);
    // Without the breakdown, the writes are at the lifetime the request asked for.
    const inferred = await priced.modelTurn(sampleInput('anthropic:claude-sonnet-4-6', { cacheTtl: '1h' }));
    expect(inferred.usage.cacheWrite1hTokens).toBe(1_000);
  });

  it('marks failed tool results and uses the default cache lifetime when no TTL is given', async () => {
    server.enqueue(anthropicMessage({ text: 'ok' }));
    const input = sampleInput('anthropic:claude-haiku-4-5');
    input.messages = [
      { role: 'user', text: 'go' },
      { role: 'assistant', text: '', toolCalls: [{ id: 'toolu_9', name: 'bash', input: { command: 'false' } }] },
      { role: 'tool', results: [{ callId: 'toolu_9', name: 'bash', content: 'exit 1', isError: true }] },
    ];
    await activities().modelTurn(input);
    const body = server.requests[0]?.body;
    expect(body.messages[1].content).toEqual([{ type: 'tool_use', id: 'toolu_9', name: 'bash', input: { command: 'false' } }]);
    expect(body.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_9', content: 'exit 1', is_error: true, cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.system[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(body.output_config).toBeUndefined();
  });

  it('maps text, tool calls, stop reason and usage including cache reads and writes', async () => {
    server.enqueue(
      anthropicMessage({
        text: 'Running the tests.',
        toolUses: [{ id: 'toolu_2', name: 'bash', input: { command: 'npm test' } }],
        usage: { input_tokens: 40, output_tokens: 12, cache_read_input_tokens: 900, cache_creation_input_tokens: 150 },
      }),
    );
    const result = await activities().modelTurn(sampleInput('anthropic:claude-sonnet-4-6'));
    expect(result).toEqual({
      text: 'Running the tests.',
      toolCalls: [{ id: 'toolu_2', name: 'bash', input: { command: 'npm test' } }],
      stopReason: 'tool_use',
      usage: { inputTokens: 40, outputTokens: 12, cacheReadTokens: 900, cacheWriteTokens: 150 },
      model: 'claude-sonnet-4-6-20250929',
    });
  });

  it('throws 429 as retryable with the retry-after delay, after exactly one request', async () => {
    server.enqueue(anthropicError(429, 'Number of request tokens has exceeded your rate limit', { retryAfter: 7 }));
    const failure = await failureOf(activities().modelTurn(sampleInput('anthropic:claude-sonnet-4-6')));
    expect(failure.nonRetryable).toBe(false);
    expect(failure.type).toBe('model_rate_limited');
    expect(failure.nextRetryDelay).toBe(7000);
    expect(server.requests).toHaveLength(1);
  });

  it('throws overloaded (529) and dropped connections as retryable', async () => {
    server.enqueue(anthropicError(529, 'Overloaded'), dropConnection());
    const overloaded = await failureOf(activities().modelTurn(sampleInput('anthropic:claude-sonnet-4-6')));
    expect([overloaded.nonRetryable, overloaded.type]).toEqual([false, 'model_unavailable']);
    const dropped = await failureOf(activities().modelTurn(sampleInput('anthropic:claude-sonnet-4-6')));
    expect([dropped.nonRetryable, dropped.type]).toEqual([false, 'model_unreachable']);
    expect(server.requests).toHaveLength(2);
  });

  it('throws a timeout as retryable', async () => {
    server.enqueue(anthropicMessage({ text: 'too late', delayMs: 1_500 }));
    const quick = createModelActivities({ baseDir: __dirname, env, anthropicBaseUrl: server.url, requestTimeoutMs: 300 });
    const failure = await failureOf(quick.modelTurn(sampleInput('anthropic:claude-sonnet-4-6')));
    expect([failure.nonRetryable, failure.type]).toEqual([false, 'model_timeout']);
  });

  it('throws a bad request as non-retryable with the API message', async () => {
    server.enqueue(anthropicError(400, 'max_tokens: must be at most 64000'));
    const failure = await failureOf(activities().modelTurn(sampleInput('anthropic:claude-sonnet-4-6')));
    expect(failure.nonRetryable).toBe(true);
    expect(failure.type).toBe('model_bad_request');
    expect(failure.message).toContain('max_tokens: must be at most 64000');
  });

  it('throws an unknown model (404) as non-retryable naming the model id', async () => {
    server.enqueue(anthropicError(404, 'model: claude-nope'));
    const failure = await failureOf(activities().modelTurn(sampleInput('anthropic:claude-nope')));
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain("check the model id 'anthropic:claude-nope'");
  });

  it('throws a refused key (401) as non-retryable naming ANTHROPIC_API_KEY', async () => {
    server.enqueue(anthropicError(401, 'invalid x-api-key'));
    const failure = await failureOf(activities().modelTurn(sampleInput('anthropic:claude-sonnet-4-6')));
    expect([failure.nonRetryable, failure.type]).toEqual([true, 'model_auth_failed']);
    expect(failure.message).toContain('check ANTHROPIC_API_KEY');
  });

  it('refuses to call without a key, before any request', async () => {
    const keyless = createModelActivities({ baseDir: __dirname, env: {}, anthropicBaseUrl: server.url });
    const failure = await failureOf(keyless.modelTurn(sampleInput('anthropic:claude-sonnet-4-6')));
    expect([failure.nonRetryable, failure.type]).toEqual([true, 'model_key_missing']);
    expect(failure.message).toMatch(/^ANTHROPIC_API_KEY is not set/);
    expect(server.requests).toHaveLength(0);
  });

  it('aborts the HTTP request when the activity is cancelled', async () => {
    server.enqueue(anthropicMessage({ text: 'never read', delayMs: 20_000 }));
    const environment = new MockActivityEnvironment();
    const started = Date.now();
    const pending = environment.run(activities().modelTurn, sampleInput('anthropic:claude-sonnet-4-6'));
    setTimeout(() => environment.cancel(), 150);
    await expect(pending).rejects.toBeInstanceOf(CancelledFailure);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(1);
  });
});
