/**
 * Secrets are read from the environment only, lazily, at the edge that needs them.
 * A config file that carries one is refused with the variable to use instead.
 */
export const SECRET_VARIABLES = {
  githubReadToken: 'GITHUB_READ_TOKEN',
  githubWriteToken: 'GITHUB_WRITE_TOKEN',
  githubAppPrivateKey: 'GITHUB_APP_PRIVATE_KEY',
  githubWebhookSecret: 'GITHUB_WEBHOOK_SECRET',
  slackBotToken: 'SLACK_BOT_TOKEN',
  slackSigningSecret: 'SLACK_SIGNING_SECRET',
  slackAppToken: 'SLACK_APP_TOKEN',
  anthropicApiKey: 'ANTHROPIC_API_KEY',
  openaiApiKey: 'OPENAI_API_KEY',
  braveSearchApiKey: 'BRAVE_SEARCH_API_KEY',
  tavilyApiKey: 'TAVILY_API_KEY',
  // The S3 claim-check store's keys: the AWS SDK reads these (or a profile or role) itself.
  awsAccessKeyId: 'AWS_ACCESS_KEY_ID',
  awsSecretAccessKey: 'AWS_SECRET_ACCESS_KEY',
  // The key session page links are signed with (server/session/, infra/session-links.ts).
  sessionSecret: 'SWITCHBOARD_SESSION_SECRET',
} as const;

export type SecretName = keyof typeof SECRET_VARIABLES;

/** Key names that look like secrets; finding one in the YAML file is an error. */
const SECRET_KEY_PATTERN = /(token|secret|password|privateKey|apiKey|accessKeyId|secretAccessKey)$/i;

export function findSecretKeys(value: unknown, path: string[] = []): string[] {
  if (value === null || typeof value !== 'object') return [];
  const found: string[] = [];
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const here = [...path, key];
    if (SECRET_KEY_PATTERN.test(key) && (typeof child === 'string' || typeof child === 'number')) {
      found.push(here.join('.'));
    } else {
      found.push(...findSecretKeys(child, here));
    }
  }
  return found;
}

/** Reads one secret from the given environment, or undefined when unset or empty. */
export function readSecret(name: SecretName, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[SECRET_VARIABLES[name]];
  return value === undefined || value === '' ? undefined : value;
}
