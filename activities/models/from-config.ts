import { type ModelsConfig } from '../../infra/config/models-section';
import { type ModelActivityDeps } from './model-deps';

/** The model activities' deps from the `models` config section (keys stay in the environment). */
export function modelDepsFromConfig(
  models: ModelsConfig,
  rest: Pick<ModelActivityDeps, 'baseDir'> & Partial<ModelActivityDeps>,
  prices?: ModelActivityDeps['prices'],
  cacheMultipliers?: ModelActivityDeps['cacheMultipliers'],
): ModelActivityDeps {
  return {
    requestTimeoutMs: models.requestTimeoutMs,
    anthropicBaseUrl: models.anthropic.baseUrl,
    openaiBaseUrl: models.openai.baseUrl,
    openaiMaxTokensField: models.openai.maxTokensField,
    openaiReasoningEffort: models.openai.reasoningEffort,
    openaiPromptCacheKey: models.openai.promptCacheKey,
    scriptedDirs: models.scriptedDirs,
    ...(prices && Object.keys(prices).length > 0 ? { prices } : {}),
    ...(cacheMultipliers && Object.keys(cacheMultipliers).length > 0 ? { cacheMultipliers } : {}),
    ...rest,
  };
}
