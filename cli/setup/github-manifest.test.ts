import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appPermissions, tokenPermissions } from '../../activities/github/app-permissions';
import { projectRoot } from '../../infra/paths';
import { APP_PERMISSIONS } from '../../activities/github/identity';
import { githubAppManifest, githubUrls, newAppUrl } from './github-manifest';

describe("the GitHub App's manifest", () => {
  it('asks for exactly the permissions tokens are narrowed from and the events the routing acts on', () => {
    const manifest = githubAppManifest({
      name: 'switchboard-sb.example.com',
      homepage: 'https://sb.example.com',
      webhookUrl: 'https://sb.example.com/webhooks/github',
      redirectUrl: 'http://127.0.0.1:4567/created',
    });
    expect(manifest).toEqual({
      name: 'switchboard-sb.example.com',
      url: 'https://sb.example.com',
      description: expect.any(String),
      hook_attributes: { url: 'https://sb.example.com/webhooks/github', active: true },
      redirect_url: 'http://127.0.0.1:4567/created',
      public: false,
      default_permissions: {
        contents: 'write',
        pull_requests: 'write',
        issues: 'write',
        checks: 'read',
        statuses: 'read',
        metadata: 'read',
      },
      default_events: [
        'issues',
        'issue_comment',
        'pull_request',
        'pull_request_review',
        'pull_request_review_comment',
        'check_suite',
        'check_run',
      ],
    });
    // The App holds what the write identity's tokens ask for; the read identity's ask for no write at all.
    expect(appPermissions()).toEqual(APP_PERMISSIONS.write);
    expect(Object.values(tokenPermissions('read'))).toEqual(Object.values(tokenPermissions('read')).map(() => 'read'));
  });

  it("is posted to github.com's or GitHub Enterprise Server's pages, for an account or an organization", () => {
    expect(githubUrls({ apiUrl: 'https://api.github.com', gitUrl: 'https://github.com' })).toEqual({
      webUrl: 'https://github.com',
      apiUrl: 'https://api.github.com',
      gitUrl: 'https://github.com',
      enterprise: false,
    });
    expect(githubUrls({ apiUrl: 'https://api.github.com', gitUrl: 'https://github.com' }, 'https://ghe.acme.example/')).toEqual({
      webUrl: 'https://ghe.acme.example',
      apiUrl: 'https://ghe.acme.example/api/v3',
      gitUrl: 'https://ghe.acme.example',
      enterprise: true,
    });
    expect(githubUrls({ apiUrl: 'https://ghe.acme.example/api/v3', gitUrl: 'https://ghe.acme.example' }).enterprise).toBe(true);
    expect(newAppUrl('https://github.com', 's t')).toBe('https://github.com/settings/apps/new?state=s%20t');
    expect(newAppUrl('https://ghe.acme.example', 'abc', 'acme')).toBe(
      'https://ghe.acme.example/organizations/acme/settings/apps/new?state=abc',
    );
  });

  it("is what docs/github.md's permissions table says", () => {
    const page = readFileSync(join(projectRoot(), 'docs', 'github.md'), 'utf8');
    const table = page.slice(page.indexOf('Repository permissions'), page.indexOf('Events (`GITHUB_WEBHOOK_EVENTS`)'));
    const names: Record<string, string> = { 'Commit statuses': 'statuses', 'Pull requests': 'pull_requests' };
    const rows = [...table.matchAll(/^\| ([A-Z][a-z ]+) \| (Read and write|Read) \|/gm)].map(([, name, access]) => [
      names[name] ?? name.toLowerCase(),
      access === 'Read' ? 'read' : 'write',
    ]);
    expect(Object.fromEntries(rows)).toEqual(appPermissions());
  });
});
