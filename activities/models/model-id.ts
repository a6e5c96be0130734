import { ApplicationFailure } from '@temporalio/common';

export const PROVIDERS = ['anthropic', 'openai', 'scripted'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** A parsed `<provider>:<model id>` string. */
export interface ModelId {
  provider: ProviderName;
  /** What follows the first colon: the API's model id, or the scripted file's path. */
  id: string;
}

/** Bare ids whose family is unambiguous, as agent defaults often write them (`claude-sonnet-4-6`). */
const BARE_FAMILIES: { pattern: RegExp; provider: ProviderName }[] = [
  { pattern: /^claude-/, provider: 'anthropic' },
  { pattern: /^(gpt-|o\d)/, provider: 'openai' },
];

/**
 * Splits `anthropic:claude-sonnet-4-6` into provider and id; a bare `claude-*`, `gpt-*` or
 * `o<digit>*` id gets its family's provider. A malformed string or an unknown provider is
 * non-retryable: the profile or the request named a model that no retry will make exist.
 */
export function parseModelId(model: string): ModelId {
  const bare = BARE_FAMILIES.find((family) => !model.includes(':') && family.pattern.test(model));
  if (bare) return { provider: bare.provider, id: model };
  const colon = model.indexOf(':');
  const provider = colon > 0 ? model.slice(0, colon) : '';
  const id = colon > 0 ? model.slice(colon + 1).trim() : '';
  if (!(PROVIDERS as readonly string[]).includes(provider) || id === '') {
    throw ApplicationFailure.nonRetryable(
      `Model '${model}' is not '<provider>:<model id>' with a provider of ${PROVIDERS.join(', ')} ` +
        `(for example anthropic:claude-sonnet-4-6, openai:gpt-4.1, scripted:examples/hello.yaml)`,
      'model_unknown',
    );
  }
  return { provider: provider as ProviderName, id };
}
