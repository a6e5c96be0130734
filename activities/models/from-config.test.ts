import { mkdtempSync, writeFileSync } from 'node:fs';
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
      openaiPromptCacheKey: true,
      scriptedDirs: { examples: join(cwd, 'examples') },
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

  it('reads models.allowed and models.scriptedDirs from the file, and names a bad directory name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'models-config-file-'));
    const file = join(dir, 'switchboard.yaml');
    writeFileSync(file, 'models:\n  allowed: [openai:*, claude-opus-4-1]\n  scriptedDirs: { examples: examples, team: /srv/scripts }\n');
    const { config } = loadConfig({ env: { SWITCHBOARD_CONFIG: file }, cwd: dir });
    expect(config.models.allowed).toEqual(['openai:*', 'claude-opus-4-1']);
    expect(modelDepsFromConfig(config.models, { baseDir: dir }).scriptedDirs).toEqual({
      examples: join(dir, 'examples'),
      team: '/srv/scripts',
    });
    writeFileSync(file, 'models:\n  scriptedDirs: { "../up": /tmp }\n');
    expect(() => loadConfig({ env: { SWITCHBOARD_CONFIG: file }, cwd: dir })).toThrow(/models\.scriptedDirs/);
  });
});
