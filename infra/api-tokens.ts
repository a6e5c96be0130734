import { createHash, randomBytes } from 'node:crypto';
import { type ApiTokenConfig } from './config/api-section';

/** Every token starts with this, so a leaked one is recognisable in a scanner or a log. */
export const TOKEN_PREFIX = 'sbt_';

/** A new bearer token: the prefix and 32 random bytes, base64url. Shown once, never stored. */
export function newToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** The only form a token is kept in: SHA-256, hex. A 256-bit random token needs no slow hash. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Who a verified token speaks for, and on which door. */
export interface Caller {
  /** The token's `id` (its name in config), for logs and rate limits. */
  tokenId: string;
  /** The requester id runs carry. */
  userId: string;
  surface: 'http' | 'mcp';
  selfServe: boolean;
  /** The token's own grant; absent: no narrowing. */
  agents?: string[];
  requestsPerMinute?: number;
  /** An admin token: it reaches every person's jobs and units (the admission counts it as an operator). */
  admin?: boolean;
}

/** An `api.tokens` entry. */
type TokenEntry = ApiTokenConfig;

/** The token table from config: looks a presented token up by its hash. */
export class TokenTable {
  private readonly byHash = new Map<string, TokenEntry>();

  constructor(tokens: readonly TokenEntry[]) {
    for (const token of tokens) this.byHash.set(token.sha256, token);
  }

  get size(): number {
    return this.byHash.size;
  }

  /** The caller a token speaks for on `surface`, or undefined for an unknown token. */
  verify(token: string, surface: Caller['surface']): Caller | undefined {
    if (!token.startsWith(TOKEN_PREFIX)) return undefined;
    const entry = this.byHash.get(hashToken(token));
    if (!entry) return undefined;
    return {
      tokenId: entry.id,
      userId: entry.user,
      surface,
      selfServe: entry.selfServe,
      ...(entry.agents ? { agents: entry.agents } : {}),
      ...(entry.requestsPerMinute ? { requestsPerMinute: entry.requestsPerMinute } : {}),
      ...(entry.admin ? { admin: true } : {}),
    };
  }
}

/** The token in an `Authorization: Bearer …` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/** The entry an operator adds under `api.tokens`, as YAML lines. */
export function tokenConfigLines(
  entry: Pick<ApiTokenConfig, 'id' | 'sha256' | 'user' | 'selfServe' | 'agents'> & { admin?: boolean },
): string[] {
  return [
    `    - id: ${entry.id}`,
    `      sha256: ${entry.sha256}`,
    `      user: ${JSON.stringify(entry.user)}`,
    ...(entry.selfServe ? ['      selfServe: true'] : []),
    ...(entry.agents ? [`      agents: [${entry.agents.join(', ')}]`] : []),
    ...(entry.admin ? ['      admin: true'] : []),
  ];
}
