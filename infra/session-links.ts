import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, linkSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type SwitchboardConfig } from './config';
import { readSecret } from './config/secrets';
import { ConfigError } from './errors';

/** Where the HTTP server serves the session pages (server/session/). */
export const SESSION_PATH = '/session';

/** The query parameter a signed link carries its token in. */
export const LINK_PARAM = 'k';

/** A shorter key is refused at start: a link's signature is only as strong as its key. */
export const MIN_SECRET_LENGTH = 32;

const HOUR = 3_600_000;

/** Why a link does not open its page: 401 for the first three, 403 for a link signed for another workflow. */
export type LinkRefusal = 'missing' | 'malformed' | 'expired' | 'other_workflow' | 'bad_signature';

export type LinkCheck = { ok: true; expiresAt: number } | { ok: false; refusal: LinkRefusal };

/**
 * Signs and checks session page links. A token is `<expiry>.<scope>.<signature>`: the expiry in
 * seconds (base 36), eight hex digits of the workflow id's hash (so a link for another workflow
 * is told apart from a forged one), and an HMAC-SHA256 over the workflow id and the expiry.
 * Scoped to one workflow id, expiring, and nothing stored: the key is the whole state.
 */
export class SessionLinks {
  constructor(
    private readonly secret: string,
    /** How long a new link lives. */
    readonly ttlMs: number,
    /** The server's base URL (no trailing slash), or '' for links relative to the server. */
    readonly baseUrl: string,
  ) {}

  /** The page's path with a token valid until `expiresAt`. */
  path(workflowId: string, expiresAt: number): string {
    return `${sessionPath(workflowId)}?${LINK_PARAM}=${this.token(workflowId, expiresAt)}`;
  }

  /**
   * The page's full link, valid for the TTL from `now`, rounded up to the hour: a status card
   * edited every few seconds keeps one link (Slack and GitHub see no churn) for an hour.
   */
  url(workflowId: string, now = Date.now()): string {
    return `${this.baseUrl}${this.path(workflowId, Math.ceil((now + this.ttlMs) / HOUR) * HOUR)}`;
  }

  token(workflowId: string, expiresAt: number): string {
    const expiry = Math.floor(expiresAt / 1000).toString(36);
    return `${expiry}.${scopeOf(workflowId)}.${this.sign(workflowId, expiry)}`;
  }

  check(workflowId: string, token: string | undefined, now = Date.now()): LinkCheck {
    if (!token) return { ok: false, refusal: 'missing' };
    const match = /^([0-9a-z]{1,12})\.([0-9a-f]{8})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!match) return { ok: false, refusal: 'malformed' };
    const [, expiry, scope, signature] = match as unknown as [string, string, string, string];
    const expected = Buffer.from(this.sign(workflowId, expiry));
    if (!timingSafeEqual(expected, Buffer.from(signature))) {
      return { ok: false, refusal: scope === scopeOf(workflowId) ? 'bad_signature' : 'other_workflow' };
    }
    const expiresAt = parseInt(expiry, 36) * 1000;
    if (expiresAt <= now) return { ok: false, refusal: 'expired' };
    return { ok: true, expiresAt };
  }

  private sign(workflowId: string, expiry: string): string {
    return createHmac('sha256', this.secret).update(`switchboard-session\n${workflowId}\n${expiry}`).digest('base64url');
  }
}

/** The page of one workflow, relative to the server. */
export function sessionPath(workflowId: string): string {
  return `${SESSION_PATH}/${encodeURIComponent(workflowId)}`;
}

function scopeOf(workflowId: string): string {
  return createHash('sha256').update(workflowId).digest('hex').slice(0, 8);
}

/**
 * Where people reach this server: `http.publicUrl`, else the HTTP listener (a wildcard host read
 * as 127.0.0.1); '' when the port is chosen at start (0), so links stay relative.
 */
export function serverBaseUrl(config: Pick<SwitchboardConfig, 'http'>): string {
  if (config.http.publicUrl) return config.http.publicUrl.replace(/\/+$/, '');
  if (config.http.port === 0) return '';
  const host = ['0.0.0.0', '::', ''].includes(config.http.host) ? '127.0.0.1' : config.http.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.http.port}`;
}

/** The key file in the data dir that signs links when SWITCHBOARD_SESSION_SECRET is not set. */
export const SESSION_KEY_FILE = 'session.key';

/** Where the link key comes from: the environment, or the data dir's key file (made on first use). */
export interface SessionKey {
  secret: string;
  source: 'environment' | 'file';
  /** The key file, for `file`. */
  file?: string;
}

/**
 * The key session links are signed with. `SWITCHBOARD_SESSION_SECRET` wins (a key shorter than
 * 32 characters stops the start); without it, `<dataDir>/session.key`, generated once (32 random
 * bytes, hex) and kept with mode 0600, so a default start signs links and they survive restarts.
 * Deleting the file rotates the key and voids every link signed with it. Processes on other
 * hosts do not share a data dir: there the environment carries one key for all (docs/deploy.md).
 */
export function sessionKey(config: Pick<SwitchboardConfig, 'dataDir'>, env: NodeJS.ProcessEnv = process.env): SessionKey {
  const secret = readSecret('sessionSecret', env);
  if (secret) {
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new ConfigError([
        `SWITCHBOARD_SESSION_SECRET: at least ${MIN_SECRET_LENGTH} characters (e.g. \`openssl rand -hex 32\`); it signs session page links`,
      ]);
    }
    return { secret, source: 'environment' };
  }
  const file = join(config.dataDir, SESSION_KEY_FILE);
  return { secret: readOrCreateKey(file), source: 'file', file };
}

/**
 * Reads the key file, or makes it: written under a temporary name with mode 0600 and linked into
 * place, so two processes starting at once (the worker and the server) end up with one key —
 * the second link fails and that process reads the first one's file.
 */
function readOrCreateKey(file: string): string {
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(temporary, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(temporary, { force: true });
    }
  }
  const stat = lstatSync(file);
  if (!stat.isFile()) throw new ConfigError([`${file}: the session link key must be a regular file; delete it to make a new key`]);
  if ((stat.mode & 0o077) !== 0) {
    throw new ConfigError([
      `${file}: the session link key is readable by others (mode ${(stat.mode & 0o777).toString(8)}): \`chmod 600 ${file}\`, or delete it to make a new key`,
    ]);
  }
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new ConfigError([`${file}: the session link key is shorter than ${MIN_SECRET_LENGTH} characters; delete it to make a new key`]);
  }
  return secret;
}

/**
 * The deployment's link signer, or undefined when the pages are off. The key is
 * SWITCHBOARD_SESSION_SECRET, else the data dir's key file (`sessionKey`).
 */
export function sessionLinksFromConfig(
  config: Pick<SwitchboardConfig, 'http' | 'sessions' | 'dataDir'>,
  env: NodeJS.ProcessEnv = process.env,
): SessionLinks | undefined {
  if (!config.sessions.enabled) return undefined;
  return new SessionLinks(sessionKey(config, env).secret, config.sessions.linkTtlHours * HOUR, serverBaseUrl(config));
}
