import type { CacheMultipliers, ModelPrice } from '../../infra/config/prices-section';
import { type Logger } from '../../infra/logger';

// On its own so that ./from-config, which builds these from the config, and ./index, which
// re-exports ./from-config, do not import each other.

/** What the model activities need; everything has a default except where scripts live. */
export interface ModelActivityDeps {
  /** Where relative `scripted:<path>` files are found (the project root or the config's directory). */
  baseDir: string;
  /**
   * The only directories scripted files are read from, by name: `scripted:<name>/<file>`
   * (absolute, or relative to `baseDir`; default `{ examples: 'examples' }`). A test adds
   * its own temp directory here.
   */
  scriptedDirs?: Readonly<Record<string, string>>;
  /** Where API keys are read from, lazily, per call (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Anthropic API base URL (default https://api.anthropic.com). */
  anthropicBaseUrl?: string;
  /** OpenAI-compatible base URL including `/v1` (default https://api.openai.com/v1). */
  openaiBaseUrl?: string;
  /** Used when a turn's `model` is empty. */
  defaultModel?: string;
  /** `max_completion_tokens` (default) or `max_tokens` for servers that only know the old name. */
  openaiMaxTokensField?: 'max_completion_tokens' | 'max_tokens';
  /** Send `reasoning_effort` to OpenAI-compatible servers (default false: non-reasoning models reject it). */
  openaiReasoningEffort?: boolean;
  /** Send a per-run `prompt_cache_key` to OpenAI-compatible servers (default true). */
  openaiPromptCacheKey?: boolean;
  /** Per-request timeout of the API providers (default 10 minutes). */
  requestTimeoutMs?: number;
  /** How often a long call heartbeats (default 5 s); keep it under the activity's heartbeat timeout. */
  heartbeatIntervalMs?: number;
  logger?: Logger;
  /** `prices.models`: USD per million tokens by model id or `prefix*` (none: turns carry no cost). */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** `prices.cache`: per provider, cache kinds as multiples of the input price (over the providers' published rules). */
  cacheMultipliers?: Readonly<Record<string, CacheMultipliers>>;
}
