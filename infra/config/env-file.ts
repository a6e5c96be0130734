import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../errors';

/**
 * The deployment's env file: where secrets live beside the process (never in the YAML file).
 * `SWITCHBOARD_ENV_FILE` names it; by default it is `switchboard.env` in the working directory.
 * The `setup` commands write it (mode 0600); every process reads it at start, and a variable
 * already in the environment wins over the file. The format is the one systemd's
 * `EnvironmentFile=` reads too: `KEY=value` lines, `#` comments, values in single quotes kept as
 * written, in double quotes with `\n`, `\"`, `\\` escapes.
 */
export const DEFAULT_ENV_FILE = 'switchboard.env';

export function envFilePath(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  return resolve(cwd, env.SWITCHBOARD_ENV_FILE || DEFAULT_ENV_FILE);
}

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The variables of an env file's text; a line that is not `KEY=value` is an error naming its number. */
export function parseEnvFile(text: string, label = 'env file'): Map<string, string> {
  const values = new Map<string, string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^(?:export\s+)?([^=\s]+)\s*=\s*(.*)$/.exec(line);
    if (!match || !KEY.test(match[1])) throw new ConfigError([`${label}:${index + 1}: expected KEY=value`]);
    values.set(match[1], unquote(match[2], `${label}:${index + 1}`));
  });
  return values;
}

function unquote(value: string, where: string): string {
  if (value.startsWith("'")) {
    if (!value.endsWith("'") || value.length < 2) throw new ConfigError([`${where}: a single-quoted value must end with '`]);
    return value.slice(1, -1);
  }
  if (value.startsWith('"')) {
    if (!value.endsWith('"') || value.length < 2) throw new ConfigError([`${where}: a double-quoted value must end with "`]);
    return value.slice(1, -1).replace(/\\([\\"n$`])/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return value;
}

/** One value as a line's right-hand side: bare when plain, else quoted (a newline becomes `\n`). */
export function quoteEnvValue(value: string): string {
  if (/^[A-Za-z0-9_./:@+,-]*$/.test(value)) return value;
  if (!value.includes("'") && !value.includes('\n')) return `'${value}'`;
  return `"${value.replace(/([\\"$`])/g, '\\$1').replace(/\n/g, '\\n')}"`;
}

/**
 * Sets variables in the env file, keeping its other lines (and comments) as they are: a key
 * already there is replaced in place, a new one is appended. Written to a temporary file with
 * mode 0600 and renamed over the old one, so a reader never sees half a file and no one else
 * can read it at any moment.
 */
export function writeEnvFile(path: string, updates: Record<string, string>, heading?: string): void {
  const lines = existsSync(path) ? readFileSync(path, 'utf8').replace(/\n$/, '').split('\n') : [];
  const pending = new Map(Object.entries(updates));
  const kept = lines.map((line) => {
    const key = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
    if (!key || !pending.has(key)) return line;
    const next = `${key}=${quoteEnvValue(pending.get(key)!)}`;
    pending.delete(key);
    return next;
  });
  if (pending.size > 0) {
    if (heading) kept.push(...(kept.length ? [''] : []), `# ${heading}`);
    for (const [key, value] of pending) kept.push(`${key}=${quoteEnvValue(value)}`);
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // Root running `setup` keeps the file its deployment's user owns (docs/deploy.md): a new file
  // renamed over it would otherwise be root's, and a server running as that user could not read it.
  const owner = existsSync(path) ? statSync(path) : undefined;
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, `${kept.join('\n')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(temporary, 0o600);
  if (owner && process.getuid?.() === 0 && (owner.uid !== 0 || owner.gid !== 0)) chownSync(temporary, owner.uid, owner.gid);
  renameSync(temporary, path);
}

export interface EnvFileReport {
  path: string;
  /** Whether a file was there. */
  found: boolean;
  /** The variables taken from it (those the environment did not already set). */
  applied: string[];
  /** Its permission bits, when found (anything beyond 0600 is worth a warning). */
  mode?: number;
}

/**
 * Reads the env file into `env` (the process's own at an entry point): a variable already set
 * wins. A missing file is no error (not every deployment has one); an unreadable or malformed
 * one is a `ConfigError` naming the file and line.
 */
export function applyEnvFile(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): EnvFileReport {
  const path = envFilePath(env, cwd);
  if (!existsSync(path)) return { path, found: false, applied: [] };
  let text: string;
  let mode: number;
  try {
    mode = lstatSync(path).mode & 0o777;
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`SWITCHBOARD_ENV_FILE: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`]);
  }
  const applied: string[] = [];
  for (const [key, value] of parseEnvFile(text, path)) {
    if (env[key] !== undefined) continue;
    env[key] = value;
    applied.push(key);
  }
  return { path, found: true, applied, mode };
}

/** The environment with the env file under it, as a new object (`env` itself is left alone). */
export function withEnvFile(env: NodeJS.ProcessEnv, cwd = process.cwd()): NodeJS.ProcessEnv {
  const merged = { ...env };
  applyEnvFile(merged, cwd);
  return merged;
}
