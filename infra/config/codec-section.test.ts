import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codecEndpointUrl } from '../codec-endpoint';
import { ConfigError } from '../errors';
import { loadConfig } from './load';

describe('codec config', () => {
  const dirs: string[] = [];
  const load = (yaml: string, env: NodeJS.ProcessEnv = {}) => {
    const dir = mkdtempSync(join(tmpdir(), 'codec-config-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'switchboard.yaml'), yaml);
    return loadConfig({ env, cwd: dir }).config;
  };
  const problem = (yaml: string, env: NodeJS.ProcessEnv = {}) => {
    try {
      load(yaml, env);
    } catch (error) {
      if (error instanceof ConfigError) return error.message;
      throw error;
    }
    throw new Error('expected a ConfigError');
  };
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('is off unless enabled, and SWITCHBOARD_CODEC_ENABLED turns it on', () => {
    expect(load('{}').codec).toEqual({ enabled: false, corsOrigins: [], localWebUiWithoutToken: true, maxBodyBytes: 8 * 1024 * 1024 });
    expect(load('{}', { SWITCHBOARD_CODEC_ENABLED: '1' }).codec.enabled).toBe(true);
    expect(codecEndpointUrl(load('{}'))).toBeUndefined();
  });

  it('names the key of a bad value', () => {
    expect(problem('codec: {corsOrigins: ["https://ui.example.com/x"]}')).toMatch(/codec\.corsOrigins\.0: an origin/);
    expect(problem('codec: {tokenIds: [ops]}')).toMatch(/codec\.tokenIds\.0: no api\.tokens entry has the id ops/);
    expect(problem('codec: {enabled: true, colour: red}')).toMatch(/unknown key codec\.colour/);
    expect(problem('{}', { SWITCHBOARD_CODEC_ENABLED: 'maybe' })).toMatch(/SWITCHBOARD_CODEC_ENABLED \(codec\.enabled\)/);
  });

  it('gives the URL the embedded Web UI is pointed at', () => {
    expect(codecEndpointUrl(load('codec: {enabled: true}\nhttp: {port: 4000}'))).toBe('http://127.0.0.1:4000/codec');
    expect(codecEndpointUrl(load('codec: {enabled: true}\nhttp: {host: 0.0.0.0, port: 4000}'))).toBe('http://127.0.0.1:4000/codec');
    expect(codecEndpointUrl(load('codec: {enabled: true}\nhttp: {publicUrl: "https://sb.example.com/"}'))).toBe(
      'https://sb.example.com/codec',
    );
    expect(codecEndpointUrl(load('codec: {enabled: true}\nhttp: {port: 0}'))).toBeUndefined();
  });
});
