import { appPermissions } from '../../activities/github/app-permissions';
import { GITHUB_WEBHOOK_EVENTS } from '../../server/github-event-routing';

/** Where a GitHub is: its web pages (where Apps are created), its REST API, and git. */
export interface GitHubUrls {
  webUrl: string;
  apiUrl: string;
  gitUrl: string;
  /** GitHub Enterprise Server (or the local GitHub): the API is `<web>/api/v3`. */
  enterprise: boolean;
}

/**
 * The URLs of a GitHub: github.com's web, `api.github.com` and git; or, for GitHub Enterprise
 * Server (and the local GitHub, laid out the same way), `<url>`, `<url>/api/v3` and `<url>`.
 * Without a URL given, the deployment's own `github.gitUrl` and `github.apiUrl`.
 */
export function githubUrls(configured: { apiUrl: string; gitUrl: string }, url?: string): GitHubUrls {
  if (url) {
    const web = url.replace(/\/+$/, '');
    if (/^https:\/\/(www\.)?github\.com$/.test(web))
      return { webUrl: 'https://github.com', apiUrl: 'https://api.github.com', gitUrl: 'https://github.com', enterprise: false };
    return { webUrl: web, apiUrl: `${web}/api/v3`, gitUrl: web, enterprise: true };
  }
  const apiUrl = configured.apiUrl.replace(/\/+$/, '');
  const gitUrl = configured.gitUrl.replace(/\/+$/, '');
  return { webUrl: gitUrl, apiUrl, gitUrl, enterprise: apiUrl !== 'https://api.github.com' };
}

/** Where the browser posts the manifest: the account's or an organization's "new App" page, with the CSRF state. */
export function newAppUrl(webUrl: string, state: string, org?: string): string {
  const path = org ? `/organizations/${encodeURIComponent(org)}/settings/apps/new` : '/settings/apps/new';
  return `${webUrl}${path}?state=${encodeURIComponent(state)}`;
}

export interface GitHubManifestOptions {
  name: string;
  /** The deployment's public URL: the App's homepage. */
  homepage: string;
  /** Where GitHub delivers webhooks (`<public URL>/webhooks/github`). */
  webhookUrl: string;
  /** Where GitHub sends the browser back with the one-time code (the setup command's own page). */
  redirectUrl: string;
}

/**
 * The App manifest: exactly the permissions Switchboard's tokens are narrowed from
 * (activities/github/app-permissions.ts) and the webhook events it acts on
 * (server/github-event-routing.ts), a webhook at the deployment, private to its owner.
 */
export function githubAppManifest(options: GitHubManifestOptions): Record<string, unknown> {
  return {
    name: options.name,
    url: options.homepage,
    description: "Switchboard: runs the team's agents on issues and pull requests",
    hook_attributes: { url: options.webhookUrl, active: true },
    redirect_url: options.redirectUrl,
    public: false,
    default_permissions: appPermissions(),
    default_events: GITHUB_WEBHOOK_EVENTS.map((entry) => entry.event),
  };
}
