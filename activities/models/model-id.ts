import { failure } from '../../workflows/contracts';
import { PROVIDERS, splitModelId, type ProviderName } from '../../agents/model-choice';

export { PROVIDERS, type ProviderName };

/** A parsed `<provider>:<model id>` string. */
export interface ModelId {
  provider: ProviderName;
  /** What follows the first colon: the API's model id, or the scripted file's path. */
  id: string;
}

/**
 * Splits `anthropic:claude-sonnet-4-6` into provider and id (the grammar lives with the
 * model allowlist in `agents/model-choice.ts`). A malformed string or an unknown provider is
 * non-retryable: the profile or the request named a model that no retry will make exist.
 */
export function parseModelId(model: string): ModelId {
  const split = splitModelId(model);
  if (!split) {
    throw failure(
      'model_unknown',
      `Model '${model}' is not '<provider>:<model id>' with a provider of ${PROVIDERS.join(', ')} ` +
        `(for example anthropic:claude-sonnet-4-6, openai:gpt-4.1, scripted:examples/hello.yaml)`,
    );
  }
  return split;
}
