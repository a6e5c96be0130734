import { randomBytes } from 'node:crypto';
import { type Request, type Response, Router } from 'express';
import { type Scope } from './state';
import { type AppInstallation, type AppRegistry, type RegisteredApp } from './app-registry';

/** The GitHub App the local GitHub accepts with a key made elsewhere; `mints` records each token it issued. */
export interface LocalGitHubApp {
  appId: string;
  installationId: number;
  /** PEM public key matching the App's private key; the JWT's RS256 signature is checked with it. */
  publicKey: string;
  /** Lifetime of minted tokens (GitHub: one hour). */
  tokenTtlSeconds?: number;
  mints?: Array<{ scope: Scope; permissions: Record<string, string> }>;
}

export interface AppRoutesDeps {
  registry: AppRegistry;
  /** The App handed in with its key, when there is one (its mints are recorded on it). */
  known?: LocalGitHubApp;
  /** Makes a token valid: its scope, and the login it acts as. */
  grant(token: string, scope: Scope, login?: string): void;
  webUrl(): string;
  apiUrl(): string;
}

/**
 * GitHub's App endpoints: the manifest conversion (`POST /app-manifests/{code}/conversions`, no
 * authentication, the code once within the hour), and, with the App's RS256 JWT, the App itself,
 * its installations, installation tokens narrowed to the permissions asked (refused, 422, past
 * what the installation holds), and its webhook's configuration and deliveries, with redelivery.
 */
export function appRoutes(deps: AppRoutesDeps): Router {
  const { registry } = deps;
  const router = Router();
  /** The JWT's App and one of its installations (none when the id is not this App's). */
  const installationOf = (req: Request, res: Response): { app: RegisteredApp; installation?: AppInstallation } => {
    const app = res.locals.app as RegisteredApp;
    const id = Number(req.params.id);
    const installation = app.installations.includes(id) ? registry.installations.get(id) : undefined;
    return { app, ...(installation ? { installation } : {}) };
  };

  router.post('/app-manifests/:code/conversions', (req, res) => {
    const app = registry.convert(String(req.params.code));
    if (!app) return void res.status(404).json({ message: 'Not Found' });
    res.status(201).json({
      ...appJson(app, deps),
      client_id: app.clientId,
      client_secret: app.clientSecret,
      webhook_secret: app.webhookSecret ?? null,
      pem: app.pem,
    });
  });

  // Everything under /app needs the App's JWT.
  const authed = Router();
  authed.use((req, res, next) => {
    const jwt = /^bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1];
    const app = jwt ? registry.appOfJwt(jwt) : undefined;
    if (!app) return void res.status(401).json({ message: 'A JSON web token could not be decoded' });
    res.locals.app = app;
    next();
  });
  authed.get('/', (_req, res) => void res.json(appJson(res.locals.app as RegisteredApp, deps)));
  authed.get('/installations', (_req, res) => {
    const app = res.locals.app as RegisteredApp;
    res.json(app.installations.map((id) => installationJson(registry.installations.get(id)!, app, deps)));
  });
  authed.get('/installations/:id', (req, res) => {
    const { app, installation } = installationOf(req, res);
    if (!installation) return void res.status(404).json({ message: 'Not Found' });
    res.json(installationJson(installation, app, deps));
  });
  authed.post('/installations/:id/access_tokens', (req, res) => {
    const { app, installation } = installationOf(req, res);
    if (!installation) return void res.status(404).json({ message: 'Not Found' });
    const permissions: Record<string, string> = req.body?.permissions ?? { contents: 'write', pull_requests: 'write', issues: 'write' };
    const known = Object.keys(installation.permissions).length > 0;
    const beyond = Object.entries(permissions).filter(([name, access]) => known && !covers(installation.permissions[name], access));
    if (beyond.length > 0) {
      return void res.status(422).json({ message: 'The permissions requested are not granted to this installation.' });
    }
    const scope: Scope = Object.values(permissions).includes('write') ? 'write' : 'read';
    const token = `ghs_${randomBytes(18).toString('hex')}`;
    deps.grant(token, scope, deps.known && String(app.id) === deps.known.appId ? undefined : `${app.slug}[bot]`);
    if (deps.known && String(app.id) === deps.known.appId) (deps.known.mints ??= []).push({ scope, permissions });
    const ttl = deps.known && String(app.id) === deps.known.appId ? (deps.known.tokenTtlSeconds ?? 3600) : 3600;
    res.status(201).json({ token, expires_at: new Date(Date.now() + ttl * 1000).toISOString(), permissions, repository_selection: 'all' });
  });
  authed.get('/hook/config', (_req, res) => {
    const app = res.locals.app as RegisteredApp;
    if (!app.hook) return void res.status(404).json({ message: 'Not Found' });
    res.json({
      url: app.hook.url,
      content_type: app.hook.contentType,
      insecure_ssl: '0',
      secret: app.webhookSecret ? '********' : undefined,
    });
  });
  authed.get('/hook/deliveries', (_req, res) => {
    const app = res.locals.app as RegisteredApp;
    // Newest first, as GitHub lists them.
    res.json(deliveriesOf(app).reverse());
  });
  authed.post('/hook/deliveries/:id/attempts', (req, res) => {
    const app = res.locals.app as RegisteredApp;
    const delivery = deliveriesOf(app).find((entry) => entry.id === Number(req.params.id));
    if (!delivery || !app.sender) return void res.status(404).json({ message: 'Not Found' });
    // GitHub answers at once and delivers on its own time.
    void app.sender.redeliver(delivery.guid).catch(() => undefined);
    res.status(202).json({});
  });
  router.use('/app', authed);
  return router;
}

/** An App delivery as GitHub's `GET /app/hook/deliveries` shows it: a number, the GUID, the answer. */
export function deliveriesOf(app: RegisteredApp) {
  const list = app.sender?.deliveries ?? [];
  return (
    list
      .map((delivery, index) => ({ delivery, index }))
      // A delivery shows once it has been attempted, as on GitHub.
      .filter(({ delivery }) => delivery.status !== undefined || delivery.error !== undefined)
      .map(({ delivery, index }) => ({
        id: index + 1,
        guid: delivery.id,
        delivered_at: new Date().toISOString(),
        redelivery: list.findIndex((other) => other.id === delivery.id) !== index,
        status_code: delivery.status ?? 0,
        status:
          delivery.status === undefined
            ? `Failed to connect: ${delivery.error}`
            : delivery.status < 300
              ? 'OK'
              : `Invalid HTTP Response: ${delivery.status}`,
        event: delivery.event,
        action: null,
        installation_id: null,
        repository_id: null,
      }))
  );
}

function appJson(app: RegisteredApp, deps: Pick<AppRoutesDeps, 'webUrl'>) {
  return {
    id: app.id,
    slug: app.slug,
    node_id: `A_${app.id}`,
    owner: { login: app.owner, type: app.ownerType },
    name: app.name,
    description: app.description,
    external_url: app.externalUrl,
    html_url: `${deps.webUrl()}/apps/${app.slug}`,
    created_at: app.createdAt,
    updated_at: app.createdAt,
    permissions: app.permissions,
    events: app.events,
  };
}

function installationJson(installation: AppInstallation, app: RegisteredApp, deps: AppRoutesDeps) {
  return {
    id: installation.id,
    app_id: app.id,
    app_slug: app.slug,
    account: { login: installation.account },
    repository_selection: installation.repositorySelection,
    access_tokens_url: `${deps.apiUrl()}/app/installations/${installation.id}/access_tokens`,
    html_url: `${deps.webUrl()}/settings/installations/${installation.id}`,
    permissions: installation.permissions,
    events: installation.events,
    created_at: installation.createdAt,
  };
}

function covers(granted: string | undefined, needed: string): boolean {
  const rank: Record<string, number> = { read: 1, write: 2, admin: 3 };
  return (rank[granted ?? ''] ?? 0) >= (rank[needed] ?? 9);
}
