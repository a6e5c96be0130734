import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../infra/errors';
import { loadConfig } from '../../infra/config/load';
import { modelDepsFromConfig } from './from-config';

describe('the models config section', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'models-config-'));

  it('defaults to the offline scripted model and the public API URLs', () => {
    const { config } = loadConfig({ env: {}, cwd });
    expect(modelDepsFromConfig(config.models, { baseDir: cwd })).toEqual({
      baseDir: cwd,
      requestTimeoutMs: 600_000,
      anthropicBaseUrl: undefined,
      openaiBaseUrl: undefined,
      openaiMaxTokensField: 'max_completion_tokens',
      openaiReasoningEffort: false,
      scriptedDirs: { examples: 'examples' },
    });
  });

  it('takes SWITCHBOARD_MODEL, ANTHROPIC_BASE_URL and OPENAI_BASE_URL from the environment', () => {
    const env = {
      SWITCHBOARD_MODEL: 'anthropic:claude-haiku-4-5',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9001',
      OPENAI_BASE_URL: 'http://127.0.0.1:9002/v1',
    };
    const { config } = loadConfig({ env, cwd });
    expect(config.agents.defaults.model).toBe('anthropic:claude-haiku-4-5');
    expect(config.models).toMatchObject({
      anthropic: { baseUrl: 'http://127.0.0.1:9001' },
      openai: { baseUrl: 'http://127.0.0.1:9002/v1' },
    });
  });

  it('refuses a base URL that is not a URL, naming the key', () => {
    expect(() => loadConfig({ env: { OPENAI_BASE_URL: 'localhost:8000' }, cwd })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { OPENAI_BASE_URL: 'localhost:8000' }, cwd })).toThrow(/models\.openai\.baseUrl/);
  });
});
