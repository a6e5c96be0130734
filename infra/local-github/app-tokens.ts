import { createVerify, randomBytes } from 'node:crypto';
import { Router } from 'express';
import { type Scope } from './state';

/** The GitHub App the local GitHub accepts; `mints` records each token it issued. */
export interface LocalGitHubApp {
  appId: string;
  installationId: number;
  /** PEM public key matching the App's private key; the JWT's RS256 signature is checked with it. */
  publicKey: string;
  /** Lifetime of minted tokens (GitHub: one hour). */
  tokenTtlSeconds?: number;
  mints?: Array<{ scope: Scope; permissions: Record<string, string> }>;
}

/** `POST /app/installations/{id}/access_tokens`: verifies the App JWT and mints a token. */
export function appRoutes(app: LocalGitHubApp, grant: (token: string, scope: Scope) => void): Router {
  const router = Router();
  router.post('/app/installations/:id/access_tokens', (req, res) => {
    const jwt = /^bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1];
    if (!jwt || !verifyJwt(jwt, app)) return void res.status(401).json({ message: 'A JSON web token could not be decoded' });
    if (Number(req.params.id) !== app.installationId) return void res.status(404).json({ message: 'Not Found' });
    const permissions: Record<string, string> = req.body?.permissions ?? { contents: 'write', pull_requests: 'write', issues: 'write' };
    const scope: Scope = Object.values(permissions).includes('write') ? 'write' : 'read';
    const token = `ghs_${randomBytes(18).toString('hex')}`;
    grant(token, scope);
    (app.mints ??= []).push({ scope, permissions });
    const expiresAt = new Date(Date.now() + (app.tokenTtlSeconds ?? 3600) * 1000).toISOString();
    res.status(201).json({ token, expires_at: expiresAt, permissions, repository_selection: 'all' });
  });
  return router;
}

function verifyJwt(jwt: string, app: LocalGitHubApp): boolean {
  const [header, payload, signature] = jwt.split('.');
  if (!header || !payload || !signature) return false;
  const verifier = createVerify('RSA-SHA256');
  verifier.update(`${header}.${payload}`);
  if (!verifier.verify(app.publicKey, Buffer.from(signature, 'base64url'))) return false;
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { iss?: string | number; exp?: number };
  return String(claims.iss) === app.appId && (claims.exp ?? 0) * 1000 > Date.now();
}
