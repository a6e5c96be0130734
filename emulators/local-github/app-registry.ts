import { createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import { WebhookSender } from './webhook-sender';

/** A GitHub App the local GitHub knows: registered from a manifest, or handed in with its key (`LocalGitHubApp`). */
export interface RegisteredApp {
  id: number;
  slug: string;
  name: string;
  /** The account that owns it (`local-admin`, or the organization of an org manifest). */
  owner: string;
  ownerType: 'User' | 'Organization';
  description: string;
  externalUrl: string;
  publicKey: string;
  /** Only for apps made here from a manifest: GitHub hands the key out once, in the conversion. */
  pem?: string;
  webhookSecret?: string;
  clientId: string;
  clientSecret: string;
  permissions: Record<string, string>;
  events: string[];
  hook?: { url: string; active: boolean; contentType: 'json' };
  public: boolean;
  createdAt: string;
  /** The app's webhook deliveries (ping, and the events of its installations). */
  sender?: WebhookSender;
  /** Installation ids of this app. */
  installations: number[];
}

export interface AppInstallation {
  id: number;
  appId: number;
  account: string;
  repositorySelection: 'all' | 'selected';
  /** `owner/name` when `selected`. */
  repositories: string[];
  permissions: Record<string, string>;
  events: string[];
  createdAt: string;
}

/** What the manifest flow handed GitHub: kept until the code is converted (once, within an hour). */
interface PendingConversion {
  appId: number;
  expiresAt: number;
}

/** Every App of the local GitHub, their installations and the one-time manifest codes. */
export class AppRegistry {
  readonly apps = new Map<number, RegisteredApp>();
  readonly installations = new Map<number, AppInstallation>();
  private readonly codes = new Map<string, PendingConversion>();
  private nextAppId = 900_001;
  private nextInstallationId = 70_000_001;

  /** An App made elsewhere whose public key the test or demo hands in, with a fixed installation (`LocalGitHubApp`). */
  addKnown(appId: number, publicKey: string, installationId: number, owner = 'local-admin'): RegisteredApp {
    const app = this.newApp({ id: appId, name: `app-${appId}`, owner, ownerType: 'User', publicKey, permissions: {}, events: [] });
    this.installations.set(installationId, {
      id: installationId,
      appId,
      account: owner,
      repositorySelection: 'all',
      repositories: [],
      permissions: {},
      events: [],
      createdAt: new Date().toISOString(),
    });
    app.installations.push(installationId);
    return app;
  }

  /** Registers an App from a manifest, as GitHub's "Create GitHub App" button does: a fresh key, secret and one-time code. */
  register(manifest: ParsedManifest, owner: string, ownerType: 'User' | 'Organization'): { app: RegisteredApp; code: string } {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    });
    const app = this.newApp({
      id: this.nextAppId++,
      name: manifest.name,
      owner,
      ownerType,
      publicKey,
      permissions: manifest.permissions,
      events: manifest.events,
      description: manifest.description,
      externalUrl: manifest.url,
      public: manifest.public,
      ...(manifest.hook ? { hook: manifest.hook } : {}),
    });
    app.pem = privateKey;
    app.webhookSecret = randomBytes(20).toString('hex');
    if (app.hook?.active) app.sender = new WebhookSender(app.hook.url, app.webhookSecret);
    const code = randomBytes(20).toString('hex');
    this.codes.set(code, { appId: app.id, expiresAt: Date.now() + 3_600_000 });
    return { app, code };
  }

  /** The App a manifest code names, once: a second use, or one after the hour, finds nothing (404), as on GitHub. */
  convert(code: string): RegisteredApp | undefined {
    const pending = this.codes.get(code);
    this.codes.delete(code);
    if (!pending || pending.expiresAt < Date.now()) return undefined;
    return this.apps.get(pending.appId);
  }

  install(app: RegisteredApp, selection: 'all' | 'selected', repositories: string[]): AppInstallation {
    const installation: AppInstallation = {
      id: this.nextInstallationId++,
      appId: app.id,
      account: app.owner,
      repositorySelection: selection,
      repositories: selection === 'selected' ? repositories : [],
      permissions: { ...app.permissions },
      events: [...app.events],
      createdAt: new Date().toISOString(),
    };
    this.installations.set(installation.id, installation);
    app.installations.push(installation.id);
    return installation;
  }

  bySlug(slug: string): RegisteredApp | undefined {
    return [...this.apps.values()].find((app) => app.slug === slug);
  }

  nameTaken(name: string): boolean {
    const slug = slugOf(name);
    return [...this.apps.values()].some((app) => app.slug === slug);
  }

  /** The App an RS256 JWT is from (its `iss`), when its signature checks with the App's key and it has not expired. */
  appOfJwt(jwt: string): RegisteredApp | undefined {
    const [header, payload, signature] = jwt.split('.');
    if (!header || !payload || !signature) return undefined;
    let claims: { iss?: string | number; exp?: number };
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return undefined;
    }
    const app = this.apps.get(Number(claims.iss));
    if (!app || (claims.exp ?? 0) * 1000 <= Date.now()) return undefined;
    const verifier = createVerify('RSA-SHA256');
    verifier.update(`${header}.${payload}`);
    return verifier.verify(app.publicKey, Buffer.from(signature, 'base64url')) ? app : undefined;
  }

  private newApp(fields: {
    id: number;
    name: string;
    owner: string;
    ownerType: 'User' | 'Organization';
    publicKey: string;
    permissions: Record<string, string>;
    events: string[];
    description?: string;
    externalUrl?: string;
    public?: boolean;
    hook?: RegisteredApp['hook'];
  }): RegisteredApp {
    const app: RegisteredApp = {
      id: fields.id,
      slug: slugOf(fields.name),
      name: fields.name,
      owner: fields.owner,
      ownerType: fields.ownerType,
      description: fields.description ?? '',
      externalUrl: fields.externalUrl ?? '',
      publicKey: fields.publicKey,
      clientId: `Iv1.${randomBytes(8).toString('hex')}`,
      clientSecret: randomBytes(20).toString('hex'),
      permissions: fields.permissions,
      events: fields.events,
      ...(fields.hook ? { hook: fields.hook } : {}),
      public: fields.public ?? false,
      createdAt: new Date().toISOString(),
      installations: [],
    };
    this.apps.set(app.id, app);
    return app;
  }
}

/** GitHub's slug of an App name: lower case, runs of anything else one hyphen. */
export function slugOf(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** A manifest as the creation page reads it. */
export interface ParsedManifest {
  name: string;
  url: string;
  description: string;
  redirectUrl?: string;
  setupUrl?: string;
  public: boolean;
  permissions: Record<string, string>;
  events: string[];
  hook?: { url: string; active: boolean; contentType: 'json' };
}

/** The permissions GitHub knows that Switchboard's manifest could name (a name outside them is refused, as GitHub does). */
const KNOWN_PERMISSIONS = new Set([
  'actions',
  'administration',
  'checks',
  'contents',
  'deployments',
  'issues',
  'metadata',
  'pages',
  'pull_requests',
  'statuses',
  'members',
  'workflows',
]);

/**
 * Reads a manifest as GitHub's "Create a GitHub App from a manifest" page does: JSON, `url`
 * required, permissions by known name with `read`/`write`, a hook URL when a hook is given.
 * Returns the problem in words when it is not one.
 */
export function parseManifest(text: unknown): ParsedManifest | string {
  if (typeof text !== 'string' || !text) return 'the manifest parameter is missing';
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return 'the manifest is not valid JSON';
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'the manifest is not a JSON object';
  if (typeof raw.url !== 'string' || !/^https?:\/\//.test(raw.url)) return 'url is required (the homepage of the app)';
  const permissions = (raw.default_permissions ?? {}) as Record<string, unknown>;
  for (const [name, access] of Object.entries(permissions)) {
    if (!KNOWN_PERMISSIONS.has(name)) return `default_permissions: ${name} is not a permission`;
    if (access !== 'read' && access !== 'write') return `default_permissions: ${name} must be read or write`;
  }
  const hook = raw.hook_attributes as { url?: unknown; active?: unknown } | undefined;
  if (hook !== undefined && (typeof hook.url !== 'string' || !/^https?:\/\//.test(hook.url))) return 'hook_attributes.url must be a URL';
  const events = Array.isArray(raw.default_events) ? raw.default_events.map(String) : [];
  return {
    name: typeof raw.name === 'string' && raw.name ? raw.name : '',
    url: raw.url,
    description: typeof raw.description === 'string' ? raw.description : '',
    ...(typeof raw.redirect_url === 'string' ? { redirectUrl: raw.redirect_url } : {}),
    ...(typeof raw.setup_url === 'string' ? { setupUrl: raw.setup_url } : {}),
    public: raw.public === true,
    permissions: permissions as Record<string, string>,
    events,
    ...(hook ? { hook: { url: hook.url as string, active: hook.active !== false, contentType: 'json' as const } } : {}),
  };
}
