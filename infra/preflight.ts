import { canonicalModel, splitModelId } from '../agents/model-choice';
import { readSecret, type LoadedConfig } from './config';

/** What a unit or run is about to need: a GitHub identity of a scope, and a model. */
export interface Needs {
  github?: Array<'read' | 'write'>;
  /** The model its runs use (default: `agents.defaults.model`). */
  model?: string;
}

/**
 * The settings missing for `needs`, each a line naming the variable or key to set; empty when
 * all are there. Commands and front ends ask this before they start work, so a request that
 * cannot succeed is refused at once instead of failing a moment later in a workflow. The
 * worker reads the same configuration and environment (`switchboard doctor` checks both).
 */
export function missingSettings(loaded: LoadedConfig, needs: Needs, env: NodeJS.ProcessEnv = process.env): string[] {
  const missing: string[] = [];
  const identity = githubIdentity(loaded, env);
  for (const scope of needs.github ?? []) {
    if (!identity[scope]) missing.push(`a GitHub ${scope} identity: ${GITHUB_FIX[scope]}`);
  }
  const model = canonicalModel(needs.model ?? loaded.config.agents.defaults.model);
  const fix = modelKeyFix(model, env);
  if (fix) missing.push(`the key of ${model}: ${fix}`);
  return missing;
}

const GITHUB_FIX = {
  read: 'set GITHUB_READ_TOKEN, or the App (github.appId, github.installationId, GITHUB_APP_PRIVATE_KEY)',
  write: 'set GITHUB_WRITE_TOKEN, or the App (github.appId, github.installationId, GITHUB_APP_PRIVATE_KEY)',
} as const;

/** Which GitHub identities the configuration provides, and through what. */
export function githubIdentity(loaded: LoadedConfig, env: NodeJS.ProcessEnv = process.env): { read?: string; write?: string } {
  const { github } = loaded.config;
  if (github.appId && github.installationId && readSecret('githubAppPrivateKey', env)) {
    return { read: `the App ${github.appId}`, write: `the App ${github.appId}` };
  }
  const write = readSecret('githubWriteToken', env) ? 'GITHUB_WRITE_TOKEN' : undefined;
  const read = readSecret('githubReadToken', env) ? 'GITHUB_READ_TOKEN' : undefined;
  return { ...(read ? { read } : {}), ...(write ? { write } : {}) };
}

/** What to set so `model` can be called from here (its provider's key), or undefined when nothing is missing. */
export function modelKeyFix(model: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const split = splitModelId(model);
  if (!split) return `name it as '<provider>:<model id>'`;
  if (split.provider === 'anthropic' && !readSecret('anthropicApiKey', env)) return 'set ANTHROPIC_API_KEY';
  if (split.provider === 'openai' && !readSecret('openaiApiKey', env)) return 'set OPENAI_API_KEY';
  return undefined;
}
