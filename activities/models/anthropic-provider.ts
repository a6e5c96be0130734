import { readSecret } from '../../infra/config/secrets';
import { type CallContext } from './activity-context';
import { fromAnthropicMessage, toAnthropicRequest } from './anthropic-mapping';
import { missingKeyFailure, toActivityFailure, type ProviderLabel } from './provider-errors';
import type { ModelTurnInput, ModelTurnResult } from '../../workflows/contracts/model';

export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

export interface AnthropicProviderOptions {
  env: NodeJS.ProcessEnv;
  baseUrl?: string;
  /** Per-request timeout; a timeout is retryable. */
  timeoutMs: number;
}

/**
 * One Messages API call (non-streaming) with the SDK's own retries off, so Temporal's retry
 * policy is the only one. The key is read per call, so a rotated key is picked up.
 */
export async function anthropicTurn(
  modelId: string,
  input: ModelTurnInput,
  call: CallContext,
  options: AnthropicProviderOptions,
): Promise<ModelTurnResult> {
  const baseUrl = options.baseUrl ?? DEFAULT_ANTHROPIC_BASE_URL;
  const label: ProviderLabel = { name: 'Anthropic', keyVariable: 'ANTHROPIC_API_KEY', baseUrl, model: `anthropic:${modelId}` };
  const apiKey = readSecret('anthropicApiKey', options.env);
  if (!apiKey) throw missingKeyFailure(label);
  // Loaded on first use: a worker that never calls Anthropic does not pay for the SDK at start.
  const { default: Anthropic } = await import('@anthropic-ai/sdk');
  const client = new Anthropic({ apiKey, baseURL: baseUrl, maxRetries: 0, timeout: options.timeoutMs });
  try {
    const message = await client.messages.create(toAnthropicRequest(modelId, input), { signal: call.signal });
    return fromAnthropicMessage(message, input.cacheTtl);
  } catch (error) {
    throw toActivityFailure(error, label, call);
  }
}
