import type OpenAI from 'openai';
import { failure } from '../../workflows/contracts';
import { readSecret } from '../../infra/config/secrets';
import { type CallContext } from './activity-context';
import { fromOpenAICompletion, toOpenAIRequest, type OpenAIRequestOptions } from './openai-mapping';
import { missingKeyFailure, toActivityFailure, type ProviderLabel } from './provider-errors';
import type { ModelTurnInput, ModelTurnResult } from '../../workflows/contracts/model';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAIProviderOptions extends OpenAIRequestOptions {
  env: NodeJS.ProcessEnv;
  /** Any OpenAI-compatible server or router, including its `/v1` path. */
  baseUrl?: string;
  timeoutMs: number;
}

/** One chat-completions call with the SDK's retries off (Temporal retries). */
export async function openaiTurn(
  modelId: string,
  input: ModelTurnInput,
  call: CallContext,
  options: OpenAIProviderOptions,
): Promise<ModelTurnResult> {
  const baseUrl = options.baseUrl ?? DEFAULT_OPENAI_BASE_URL;
  const label: ProviderLabel = { name: 'OpenAI-compatible API', keyVariable: 'OPENAI_API_KEY', baseUrl, model: `openai:${modelId}` };
  const apiKey = readSecret('openaiApiKey', options.env);
  if (!apiKey) throw missingKeyFailure(label, ' (a local server that needs no key accepts any value)');
  // Loaded on first use: a worker that never calls this API does not pay for the SDK at start.
  const { default: OpenAIClient } = await import('openai');
  const client = new OpenAIClient({ apiKey, baseURL: baseUrl, maxRetries: 0, timeout: options.timeoutMs });
  let completion: OpenAI.Chat.ChatCompletion;
  try {
    completion = await client.chat.completions.create(toOpenAIRequest(modelId, input, options), { signal: call.signal });
  } catch (error) {
    throw toActivityFailure(error, label, call);
  }
  const result = fromOpenAICompletion(completion);
  // An answer without choices is a server hiccup (some routers do this under load): retry.
  if (!result)
    throw failure('model_unavailable', `${label.name} at ${baseUrl} answered with no choices for ${label.model}`, { retryable: true });
  return result;
}
