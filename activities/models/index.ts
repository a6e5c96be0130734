import { SpanKind } from '@opentelemetry/api';
import { inSpan } from '../tracing';
import { type ModelActivityDeps } from './model-deps';
import { currentCallContext, withHeartbeat } from './activity-context';
import { anthropicTurn } from './anthropic-provider';
import { parseModelId } from './model-id';
import { openaiTurn } from './openai-provider';
import { turnPrice } from './prices';
import { scriptedTurn } from './scripted-provider';
import type { ModelTurnInput, ModelTurnResult } from '../../workflows/contracts/model';

export { parseModelId, type ModelId, type ProviderName } from './model-id';
export type { ModelActivityDeps } from './model-deps';

export const DEFAULT_MODEL = 'scripted:examples/hello.yaml';
export const DEFAULT_SCRIPTED_DIRS: Readonly<Record<string, string>> = { examples: 'examples' };

/**
 * The `modelTurn` activity: one model call, provider chosen by the `<provider>:` prefix.
 * Failures follow Temporal's rules: transient ones are thrown retryable (with the server's
 * `retry-after` as `nextRetryDelay`), ones a retry cannot fix are non-retryable and say what
 * to fix. Long calls heartbeat; a cancelled activity aborts its HTTP request.
 */
export function createModelActivities(deps: ModelActivityDeps) {
  const heartbeatIntervalMs = deps.heartbeatIntervalMs ?? 5_000;
  const timeoutMs = deps.requestTimeoutMs ?? 600_000;
  const env = () => deps.env ?? process.env;

  async function modelTurn(input: ModelTurnInput): Promise<ModelTurnResult> {
    const model = input.model || deps.defaultModel || DEFAULT_MODEL;
    const { provider, id } = parseModelId(model);
    const call = currentCallContext();
    const started = Date.now();
    // The GenAI semantic conventions' client span: the model, tokens in and out, the cache, the cost; never the prompt.
    return inSpan(
      `chat ${id}`,
      {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': provider,
        'gen_ai.request.model': id,
        'switchboard.turn': input.turn ?? 0,
      },
      async (span) => {
        const result = await withHeartbeat(call, heartbeatIntervalMs, () => {
          if (provider === 'anthropic') return anthropicTurn(id, input, call, { env: env(), baseUrl: deps.anthropicBaseUrl, timeoutMs });
          if (provider === 'openai') {
            return openaiTurn(id, input, call, {
              env: env(),
              baseUrl: deps.openaiBaseUrl,
              timeoutMs,
              maxTokensField: deps.openaiMaxTokensField ?? 'max_completion_tokens',
              reasoningEffort: deps.openaiReasoningEffort ?? false,
              promptCacheKey: deps.openaiPromptCacheKey ?? true,
            });
          }
          return scriptedTurn(id, input, call, { baseDir: deps.baseDir, dirs: deps.scriptedDirs ?? DEFAULT_SCRIPTED_DIRS });
        });
        // Priced by the id the run asked for (what the config names), not the provider's dated answer.
        const price = deps.prices ? turnPrice({ models: deps.prices, cache: deps.cacheMultipliers }, model, result.usage) : undefined;
        const costUsd = price?.usd;
        deps.logger?.debug(
          {
            runId: input.runId,
            turn: input.turn,
            model: result.model,
            usage: result.usage,
            costUsd,
            toolCalls: result.toolCalls.length,
            ms: Date.now() - started,
          },
          'model turn',
        );
        span.setAttributes({
          'gen_ai.response.model': result.model,
          'gen_ai.response.finish_reasons': [result.stopReason],
          'gen_ai.usage.input_tokens': result.usage.inputTokens,
          'gen_ai.usage.output_tokens': result.usage.outputTokens,
          'gen_ai.usage.cache_read.input_tokens': result.usage.cacheReadTokens ?? 0,
          'gen_ai.usage.cache_creation.input_tokens': result.usage.cacheWriteTokens ?? 0,
          'switchboard.tool_calls': result.toolCalls.length,
          ...(costUsd !== undefined ? { 'switchboard.cost_usd': costUsd } : {}),
        });
        return price ? { ...result, costUsd: price.usd, costWithoutCacheUsd: price.withoutCacheUsd } : result;
      },
      SpanKind.CLIENT,
    );
  }

  return { modelTurn };
}

export type ModelActivities = ReturnType<typeof createModelActivities>;
export { modelDepsFromConfig } from './from-config';
