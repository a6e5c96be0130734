/**
 * Environment variables that override the config file. Precedence, lowest first:
 * schema defaults -> YAML file -> these variables. Each maps to one key path.
 */
export interface EnvironmentBinding {
  variable: string;
  path: string[];
  kind: 'string' | 'number' | 'boolean' | 'json';
}

export const ENVIRONMENT_BINDINGS: readonly EnvironmentBinding[] = [
  { variable: 'TEMPORAL_ADDRESS', path: ['temporal', 'address'], kind: 'string' },
  { variable: 'TEMPORAL_NAMESPACE', path: ['temporal', 'namespace'], kind: 'string' },
  { variable: 'TEMPORAL_PROFILE', path: ['temporal', 'profile'], kind: 'string' },
  { variable: 'SWITCHBOARD_TASK_QUEUE', path: ['temporal', 'taskQueue'], kind: 'string' },
  { variable: 'TEMPORAL_UI_URL', path: ['temporal', 'uiUrl'], kind: 'string' },
  { variable: 'SWITCHBOARD_TEMPORAL_PORT', path: ['temporal', 'embedded', 'port'], kind: 'number' },
  { variable: 'SWITCHBOARD_TEMPORAL_UI_PORT', path: ['temporal', 'embedded', 'uiPort'], kind: 'number' },
  { variable: 'SWITCHBOARD_METRICS_PORT', path: ['metrics', 'port'], kind: 'number' },
  { variable: 'SWITCHBOARD_METRICS_HOST', path: ['metrics', 'host'], kind: 'string' },
  { variable: 'SWITCHBOARD_DATA_DIR', path: ['dataDir'], kind: 'string' },
  { variable: 'SWITCHBOARD_PAYLOADS_DIR', path: ['payloads', 'dir'], kind: 'string' },
  { variable: 'SWITCHBOARD_CODEC_ENABLED', path: ['codec', 'enabled'], kind: 'boolean' },
  { variable: 'SWITCHBOARD_PAYLOADS_STORE', path: ['payloads', 'store'], kind: 'string' },
  // The S3-compatible claim-check store; its credentials and region come from the AWS SDK's own chain.
  { variable: 'SWITCHBOARD_PAYLOADS_S3_BUCKET', path: ['payloads', 's3', 'bucket'], kind: 'string' },
  { variable: 'SWITCHBOARD_PAYLOADS_S3_PREFIX', path: ['payloads', 's3', 'prefix'], kind: 'string' },
  { variable: 'SWITCHBOARD_PAYLOADS_S3_ENDPOINT', path: ['payloads', 's3', 'endpoint'], kind: 'string' },
  { variable: 'SWITCHBOARD_PAYLOADS_S3_FORCE_PATH_STYLE', path: ['payloads', 's3', 'forcePathStyle'], kind: 'boolean' },
  { variable: 'SWITCHBOARD_HTTP_HOST', path: ['http', 'host'], kind: 'string' },
  { variable: 'PORT', path: ['http', 'port'], kind: 'number' },
  { variable: 'SWITCHBOARD_PUBLIC_URL', path: ['http', 'publicUrl'], kind: 'string' },
  { variable: 'SWITCHBOARD_SESSIONS_ENABLED', path: ['sessions', 'enabled'], kind: 'boolean' },
  { variable: 'SWITCHBOARD_SESSION_LINK_TTL_HOURS', path: ['sessions', 'linkTtlHours'], kind: 'number' },
  { variable: 'LOG_LEVEL', path: ['log', 'level'], kind: 'string' },
  { variable: 'SWITCHBOARD_LOG_FORMAT', path: ['log', 'format'], kind: 'string' },
  // The model every run uses unless an agent, channel, person or directive chooses one.
  { variable: 'SWITCHBOARD_MODEL', path: ['agents', 'defaults', 'model'], kind: 'string' },
  { variable: 'ANTHROPIC_BASE_URL', path: ['models', 'anthropic', 'baseUrl'], kind: 'string' },
  { variable: 'OPENAI_BASE_URL', path: ['models', 'openai', 'baseUrl'], kind: 'string' },
  { variable: 'GITHUB_API_URL', path: ['github', 'apiUrl'], kind: 'string' },
  { variable: 'GITHUB_GIT_URL', path: ['github', 'gitUrl'], kind: 'string' },
  { variable: 'GITHUB_APP_ID', path: ['github', 'appId'], kind: 'string' },
  { variable: 'GITHUB_APP_INSTALLATION_ID', path: ['github', 'installationId'], kind: 'number' },
  { variable: 'GITHUB_BOT_LOGIN', path: ['github', 'botLogin'], kind: 'string' },
  { variable: 'SLACK_API_URL', path: ['slack', 'apiUrl'], kind: 'string' },
  { variable: 'SWITCHBOARD_SLACK_MODE', path: ['slack', 'mode'], kind: 'string' },
  { variable: 'SWITCHBOARD_SEARCH_PROVIDER', path: ['web', 'search', 'provider'], kind: 'string' },
  { variable: 'SEARXNG_URL', path: ['web', 'search', 'searxng', 'url'], kind: 'string' },
  { variable: 'SWITCHBOARD_SANDBOX_ISOLATION', path: ['sandbox', 'isolation'], kind: 'string' },
  // API tokens (hashes, never tokens) as a JSON list of api.tokens entries.
  { variable: 'SWITCHBOARD_API_TOKENS', path: ['api', 'tokens'], kind: 'json' },
];

/** Converts one variable's text; a value that cannot convert is passed on as text so the schema names it. */
export function convertEnvironmentValue(binding: EnvironmentBinding, raw: string): unknown {
  if (binding.kind === 'number') {
    const value = Number(raw);
    return raw.trim() !== '' && Number.isFinite(value) ? value : raw;
  }
  if (binding.kind === 'json') {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw;
    }
  }
  if (binding.kind === 'boolean') {
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    return raw;
  }
  return raw;
}
