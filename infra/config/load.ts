import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { type z } from 'zod';
import { ConfigError } from '../errors';
import { ConfigSchema, type SwitchboardConfig } from './schema';
import { convertEnvironmentValue, ENVIRONMENT_BINDINGS } from './environment';
import { findSecretKeys, SECRET_VARIABLES } from './secrets';
import { loadTemporalProfile, type TemporalProfile } from './temporal-profile';

export const DEFAULT_CONFIG_FILE = 'switchboard.yaml';

export interface ConfigSource {
  /** The YAML file read, if any. */
  file?: string;
  /** Why that file (or none) was chosen. */
  fileReason: 'SWITCHBOARD_CONFIG' | 'default file' | 'no file';
  /** Environment variables that overrode a value. */
  environment: string[];
}

export interface LoadedConfig {
  /** The settings; path settings (`dataDir`, `agents.customAgentsDir`) are already absolute. */
  config: SwitchboardConfig;
  source: ConfigSource;
  /** The working directory: where relative `scripted:` paths in requests resolve. */
  baseDir: string;
  /**
   * Temporal's own client configuration (its TOML profile and TEMPORAL_* variables): the layer
   * under `temporal.*`. Its address and namespace are already in `config.temporal`; its TLS, API
   * key and gRPC headers are applied by `infra/temporal-connection.ts`.
   */
  temporalProfile: TemporalProfile;
}

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/**
 * Loads the configuration: defaults, then the YAML file (`SWITCHBOARD_CONFIG`, else
 * `switchboard.yaml` in the working directory when present), then environment variables.
 * Throws `ConfigError` naming each bad key path and what was expected.
 */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const { file, fileReason } = chooseFile(env, cwd);
  const raw = file ? readYaml(file) : {};
  const label = file ?? 'config';

  const secrets = findSecretKeys(raw);
  if (secrets.length > 0) {
    const variables = Object.values(SECRET_VARIABLES).join(', ');
    throw new ConfigError(
      secrets.map((key) => `${label}: ${key}: secrets are read from the environment only (${variables}); remove it from the file`),
    );
  }

  const merged = structuredClone(raw);
  const overridden: string[] = [];
  for (const binding of ENVIRONMENT_BINDINGS) {
    const value = env[binding.variable];
    if (value === undefined || value === '') continue;
    setPath(merged, binding.path, convertEnvironmentValue(binding, value));
    overridden.push(binding.variable);
  }

  // Temporal's client config is the bottom layer for the connection: our file and variables win.
  const temporalProfile = loadTemporalProfile(env, getPath(merged, ['temporal', 'profile']));
  for (const key of ['address', 'namespace'] as const) {
    const value = temporalProfile[key];
    if (value !== undefined && getPath(merged, ['temporal', key]) === undefined) setPath(merged, ['temporal', key], value);
  }

  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) throw new ConfigError(describeIssues(parsed.error, label, overridden));
  const config = resolvePaths(parsed.data, { raw, fileDir: file ? dirname(file) : cwd, cwd, overridden });
  return { config, source: { file, fileReason, environment: overridden }, baseDir: cwd, temporalProfile };
}

/** Resolves a path against the base directory (absolute paths stay). Config path settings are absolute already. */
export function resolveConfigPath(loaded: Pick<LoadedConfig, 'baseDir'>, path: string): string {
  return isAbsolute(path) ? path : resolve(loaded.baseDir, path);
}

/** Settings that name a folder or file; `*` is any key of a record or index of a list. */
const PATH_KEYS: readonly string[][] = [
  ['dataDir'],
  ['payloads', 'dir'],
  ['agents', 'customAgentsDir'],
  ['skills', 'dirs', '*'],
  ['models', 'scriptedDirs', '*'],
  ['temporal', 'tls', 'serverCaFile'],
  ['temporal', 'tls', 'clientCertFile'],
  ['temporal', 'tls', 'clientKeyFile'],
];

/**
 * A relative path written in the config file means "next to this file", wherever the process
 * starts; one from an environment variable or a default means the working directory.
 */
function resolvePaths(
  config: SwitchboardConfig,
  origin: { raw: Record<string, unknown>; fileDir: string; cwd: string; overridden: string[] },
): SwitchboardConfig {
  const fromEnvironment = (path: string[]) =>
    ENVIRONMENT_BINDINGS.some((b) => origin.overridden.includes(b.variable) && b.path.join('.') === path.join('.'));
  const baseFor = (path: string[]) => (!fromEnvironment(path) && getPath(origin.raw, path) !== undefined ? origin.fileDir : origin.cwd);
  const target = config as unknown as Record<string, unknown>;
  for (const path of PATH_KEYS.flatMap((pattern) => expand(target, pattern))) {
    const value = getPath(target, path);
    if (typeof value === 'string' && !isAbsolute(value)) replaceAt(target, path, resolve(baseFor(path), value));
  }
  return config;
}

/** Replaces a value that exists (in a record or a list) without reshaping its parents. */
function replaceAt(target: Record<string, unknown>, path: string[], value: string): void {
  const parent = getPath(target, path.slice(0, -1)) as Record<string, unknown>;
  parent[path[path.length - 1]] = value;
}

function getPath(source: unknown, path: string[]): unknown {
  let node = source;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The concrete key paths a pattern with `*` matches in `source`. */
function expand(source: unknown, pattern: readonly string[]): string[][] {
  const star = pattern.indexOf('*');
  if (star < 0) return [[...pattern]];
  const parent = getPath(source, pattern.slice(0, star));
  if (parent === null || typeof parent !== 'object') return [];
  return Object.keys(parent).flatMap((key) => expand(source, [...pattern.slice(0, star), key, ...pattern.slice(star + 1)]));
}

function chooseFile(env: NodeJS.ProcessEnv, cwd: string): Pick<ConfigSource, 'file' | 'fileReason'> {
  const named = env.SWITCHBOARD_CONFIG;
  if (named) {
    const file = resolve(cwd, named);
    if (!existsSync(file)) throw new ConfigError([`SWITCHBOARD_CONFIG: file ${file} does not exist`]);
    return { file, fileReason: 'SWITCHBOARD_CONFIG' };
  }
  const fallback = resolve(cwd, DEFAULT_CONFIG_FILE);
  return existsSync(fallback) ? { file: fallback, fileReason: 'default file' } : { fileReason: 'no file' };
}

function readYaml(file: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    const detail = error instanceof YAMLParseError ? error.message.split('\n')[0] : String(error);
    throw new ConfigError([`${file}: not valid YAML: ${detail}`]);
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError([`${file}: expected a mapping of settings at the top level`]);
  }
  return value as Record<string, unknown>;
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}

function describeIssues(error: z.ZodError, label: string, overridden: string[]): string[] {
  return error.issues.map((issue) => {
    const keyPath = issue.path.map(String).join('.');
    const binding = ENVIRONMENT_BINDINGS.find(
      (b) => overridden.includes(b.variable) && (keyPath === b.path.join('.') || keyPath.startsWith(`${b.path.join('.')}.`)),
    );
    const where = binding ? `${binding.variable} (${keyPath})` : `${label}: ${keyPath || '(top level)'}`;
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => (keyPath ? `${keyPath}.${k}` : k));
      return `${label}: unknown key${keys.length > 1 ? 's' : ''} ${keys.join(', ')}`;
    }
    return `${where}: ${issue.message}`;
  });
}
