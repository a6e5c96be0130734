import { readSecret } from '../../infra/config/secrets';
import { DEFAULT_ANTHROPIC_BASE_URL } from './anthropic-provider';
import { DEFAULT_OPENAI_BASE_URL } from './openai-provider';

export interface ModelAccessCheck {
  /** `anthropic` or `openai`: the provider prefix of model ids. */
  provider: 'anthropic' | 'openai';
  /** Resolves when the API answers and accepts the key; rejects naming what to fix. */
  verify(): Promise<void>;
}

export interface ModelAccessOptions {
  env?: NodeJS.ProcessEnv;
  anthropicBaseUrl?: string;
  openaiBaseUrl?: string;
  timeoutMs?: number;
}

/**
 * A start-up check for each model API whose key is set: list one model, which is free. Any
 * answer but a refused key proves the API is there (a compatible server without a model list
 * answers 404, and that is fine: it answered).
 */
export function modelAccessChecks(options: ModelAccessOptions = {}): ModelAccessCheck[] {
  const env = options.env ?? process.env;
  const timeout = options.timeoutMs ?? 10_000;
  const checks: ModelAccessCheck[] = [];
  const anthropicKey = readSecret('anthropicApiKey', env);
  if (anthropicKey) {
    const baseUrl = options.anthropicBaseUrl ?? DEFAULT_ANTHROPIC_BASE_URL;
    // The SDKs load when a check runs, not when the process starts.
    checks.push({
      provider: 'anthropic',
      verify: () =>
        judge(
          async () => {
            const { default: Anthropic } = await import('@anthropic-ai/sdk');
            return new Anthropic({ apiKey: anthropicKey, baseURL: baseUrl, maxRetries: 0, timeout }).models.list({ limit: 1 });
          },
          `Anthropic at ${baseUrl}`,
          'ANTHROPIC_API_KEY',
        ),
    });
  }
  const openaiKey = readSecret('openaiApiKey', env);
  if (openaiKey) {
    const baseUrl = options.openaiBaseUrl ?? DEFAULT_OPENAI_BASE_URL;
    checks.push({
      provider: 'openai',
      verify: () =>
        judge(
          async () => {
            const { default: OpenAI } = await import('openai');
            return new OpenAI({ apiKey: openaiKey, baseURL: baseUrl, maxRetries: 0, timeout }).models.list();
          },
          `The model API at ${baseUrl}`,
          'OPENAI_API_KEY',
        ),
    });
  }
  return checks;
}

async function judge(call: () => PromiseLike<unknown>, what: string, keyVariable: string): Promise<void> {
  try {
    await call();
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (status === 401 || status === 403) throw new Error(`${what} refused ${keyVariable} (HTTP ${status})`);
    if (typeof status === 'number' && (status >= 500 || status === 429)) throw new Error(`${what} answered HTTP ${status}`);
    if (typeof status === 'number') return;
    let deepest: unknown = error;
    while (deepest instanceof Error && deepest.cause instanceof Error) deepest = deepest.cause;
    throw new Error(`${what} is unreachable (${deepest instanceof Error ? deepest.message.split('\n')[0] : String(error)})`);
  }
}
