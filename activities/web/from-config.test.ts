import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConfigError } from '../../infra/errors';
import { loadConfig } from '../../infra/config/load';
import { webDepsFromConfig } from './from-config';

function configWith(yaml: string, env: NodeJS.ProcessEnv = {}) {
  const cwd = mkdtempSync(join(tmpdir(), 'switchboard-web-config-'));
  writeFileSync(join(cwd, 'switchboard.yaml'), yaml);
  return loadConfig({ env, cwd }).config;
}

describe('web config', () => {
  it('fetches by default with an empty allowlist, and searches with nothing', () => {
    const deps = webDepsFromConfig(configWith('{}').web, () => undefined);
    expect(deps.fetch).toMatchObject({ allowHosts: [], maxRedirects: 5, timeoutMs: 20_000, maxBytes: 5 * 1024 * 1024 });
    expect(deps.search).toBeUndefined();
    expect(deps.searchOff).toBeUndefined();
  });

  it('chooses the provider by config and its key from the environment; a missing key turns search off with the variable named', () => {
    const brave = configWith('web:\n  search:\n    provider: brave\n').web;
    expect(webDepsFromConfig(brave, (name) => (name === 'braveSearchApiKey' ? 'k' : undefined)).search?.name).toBe('brave');
    expect(webDepsFromConfig(brave, () => undefined)).toMatchObject({
      searchOff: 'web.search.provider is brave but BRAVE_SEARCH_API_KEY is not set',
    });
    const searxng = configWith('{}', { SWITCHBOARD_SEARCH_PROVIDER: 'searxng', SEARXNG_URL: 'http://searxng.internal:8080' }).web;
    expect(webDepsFromConfig(searxng, () => undefined).search?.name).toBe('searxng');
    expect(webDepsFromConfig(configWith('web:\n  fetch:\n    enabled: false\n').web, () => undefined).fetch).toBeUndefined();
  });

  it('names the key when searxng has no URL, and refuses a key in the file', () => {
    const missing = (() => {
      try {
        configWith('web:\n  search:\n    provider: searxng\n');
      } catch (error) {
        return error as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(missing.message).toContain('web.search.searxng.url');
    expect(() => configWith('web:\n  search:\n    brave:\n      apiKey: secret\n')).toThrow(/BRAVE_SEARCH_API_KEY/);
  });
});
