import express, { type Request, type Response, Router } from 'express';
import { parseManifest, type AppRegistry, type RegisteredApp } from './app-registry';
import { type LocalGitHubState } from './state';

export interface AppPagesDeps {
  registry: AppRegistry;
  state: LocalGitHubState;
  /** The person signed in to the local GitHub's web pages (who creates and installs Apps). */
  webUser: string;
  webUrl(): string;
}

/**
 * GitHub's web side of Apps, as a browser meets it: the manifest flow's "Create GitHub App" page
 * (`POST /settings/apps/new` or `/organizations/{org}/settings/apps/new` with a `manifest` form
 * field and `?state=`), which registers the App, pings its webhook and redirects to the manifest's
 * `redirect_url` with a one-time `code` and the same `state`; the App's page; and the install page,
 * which installs it on all or selected repositories (a `setup_url` is not followed: Switchboard's
 * manifest sets none).
 */
export function appPages(deps: AppPagesDeps): Router {
  const { registry } = deps;
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '1mb' });

  const newApp = (owner: string, ownerType: 'User' | 'Organization') => (req: Request, res: Response) => {
    const manifest = parseManifest(req.body?.manifest);
    if (typeof manifest === 'string')
      return void res
        .status(422)
        .type('html')
        .send(page('Invalid manifest', `<p class="error">${esc(manifest)}</p>`));
    const state = typeof req.query.state === 'string' ? req.query.state : '';
    res.type('html').send(createPage(String(req.body.manifest), manifest, owner, ownerType, state));
  };
  router.post('/settings/apps/new', form, newApp(deps.webUser, 'User'));
  router.post('/organizations/:org/settings/apps/new', form, (req, res) => newApp(String(req.params.org), 'Organization')(req, res));

  router.post('/settings/apps/new/confirm', form, async (req, res) => {
    const manifest = parseManifest(req.body?.manifest);
    if (typeof manifest === 'string')
      return void res
        .status(422)
        .type('html')
        .send(page('Invalid manifest', `<p class="error">${esc(manifest)}</p>`));
    const name = String(req.body.name ?? '').trim();
    const owner = String(req.body.owner ?? deps.webUser);
    const ownerType = req.body.owner_type === 'Organization' ? 'Organization' : 'User';
    const again = (problem: string) =>
      res
        .status(422)
        .type('html')
        .send(createPage(String(req.body.manifest), { ...manifest, name }, owner, ownerType, String(req.body.state ?? ''), problem));
    if (!name || name.length > 34) return void again('The name must be 1 to 34 characters.');
    if (registry.nameTaken(name)) return void again(`Name "${name}" is already taken.`);
    const { app, code } = registry.register({ ...manifest, name }, owner, ownerType);
    // GitHub pings a new App's webhook at once (before the App's server holds its secret, usually).
    if (app.sender) await app.sender.deliver('ping', pingPayload(app, deps));
    if (!manifest.redirectUrl) return void res.redirect(302, `/apps/${app.slug}`);
    const target = new URL(manifest.redirectUrl);
    target.searchParams.set('code', code);
    if (req.body.state) target.searchParams.set('state', String(req.body.state));
    res.redirect(302, target.toString());
  });

  router.get('/apps/:slug', (req, res) => {
    const app = registry.bySlug(String(req.params.slug));
    if (!app) return void res.status(404).type('html').send(page('Not Found', '<p>No such App.</p>'));
    res.type('html').send(
      page(
        app.name,
        `<p>${esc(app.description || 'A GitHub App')} — owned by <b>${esc(app.owner)}</b>.</p>
<p><a class="button" href="/apps/${esc(app.slug)}/installations/new">Install</a></p>`,
      ),
    );
  });

  router.get('/apps/:slug/installations/new', (req, res) => {
    const app = registry.bySlug(String(req.params.slug));
    if (!app) return void res.status(404).type('html').send(page('Not Found', '<p>No such App.</p>'));
    const repos = [...deps.state.repos.values()].map((repo) => `${repo.owner}/${repo.name}`).sort();
    const options = repos
      .map((repo) => `<label><input type="checkbox" name="repositories" value="${esc(repo)}"> ${esc(repo)}</label>`)
      .join('\n');
    res.type('html').send(
      page(
        `Install ${app.name}`,
        `<form method="post" action="/apps/${esc(app.slug)}/installations">
<p>Install on <b>${esc(app.owner)}</b>, with these permissions: ${permissionList(app)}</p>
<fieldset><legend>Repository access</legend>
<label><input type="radio" name="selection" value="all" checked> All repositories</label>
<label><input type="radio" name="selection" value="selected"> Only select repositories</label>
${options}
</fieldset>
<button type="submit">Install</button>
</form>`,
      ),
    );
  });

  router.post('/apps/:slug/installations', form, (req, res) => {
    const app = registry.bySlug(String(req.params.slug));
    if (!app) return void res.status(404).type('html').send(page('Not Found', '<p>No such App.</p>'));
    const chosen = ([] as string[]).concat(req.body.repositories ?? []).map(String);
    const installation = registry.install(app, req.body.selection === 'selected' ? 'selected' : 'all', chosen);
    res.redirect(302, `/settings/installations/${installation.id}`);
  });

  router.get('/settings/installations/:id', (req, res) => {
    const installation = registry.installations.get(Number(req.params.id));
    const app = installation ? registry.apps.get(installation.appId) : undefined;
    if (!installation || !app) return void res.status(404).type('html').send(page('Not Found', '<p>No such installation.</p>'));
    const where =
      installation.repositorySelection === 'all' ? 'all repositories' : installation.repositories.join(', ') || 'no repositories';
    res
      .type('html')
      .send(
        page(
          `${app.name} is installed`,
          `<p id="installed">Installed on <b>${esc(installation.account)}</b> for ${esc(where)} (installation ${installation.id}).</p>`,
        ),
      );
  });

  return router;
}

function createPage(
  raw: string,
  manifest: Exclude<ReturnType<typeof parseManifest>, string>,
  owner: string,
  ownerType: string,
  state: string,
  problem?: string,
): string {
  const events = manifest.events.length ? manifest.events.map((event) => `<li>${esc(event)}</li>`).join('') : '<li>none</li>';
  const hook = manifest.hook
    ? `<p>Webhook: <code>${esc(manifest.hook.url)}</code> (${manifest.hook.active ? 'active' : 'inactive'})</p>`
    : '<p>No webhook.</p>';
  return page(
    `Create GitHub App for ${owner}`,
    `${problem ? `<p class="error">${esc(problem)}</p>` : ''}
<form method="post" action="/settings/apps/new/confirm">
<input type="hidden" name="manifest" value="${esc(raw)}">
<input type="hidden" name="state" value="${esc(state)}">
<input type="hidden" name="owner" value="${esc(owner)}">
<input type="hidden" name="owner_type" value="${esc(ownerType)}">
<label>GitHub App name <input name="name" value="${esc(manifest.name)}" maxlength="34" required></label>
<p>Homepage: <code>${esc(manifest.url)}</code></p>
${hook}
<h2>Permissions</h2>${permissionList({ permissions: manifest.permissions })}
<h2>Events</h2><ul>${events}</ul>
<button type="submit">Create GitHub App for ${esc(owner)}</button>
</form>`,
  );
}

function permissionList(app: Pick<RegisteredApp, 'permissions'>): string {
  const entries = Object.entries(app.permissions);
  return entries.length ? `<ul>${entries.map(([name, access]) => `<li>${esc(name)}: ${esc(access)}</li>`).join('')}</ul>` : '<p>none</p>';
}

function pingPayload(app: RegisteredApp, deps: Pick<AppPagesDeps, 'webUrl'>) {
  return {
    zen: 'Keep it logically awesome.',
    hook_id: app.id * 10,
    hook: {
      type: 'App',
      id: app.id * 10,
      name: 'web',
      active: app.hook?.active ?? false,
      events: app.events,
      config: { content_type: 'json', insecure_ssl: '0', url: app.hook?.url },
      app_id: app.id,
    },
    sender: { login: app.owner, type: app.ownerType, html_url: `${deps.webUrl()}/${app.owner}` },
  };
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)} · local GitHub</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
label{display:block;margin:.4rem 0}input[name=name]{font-size:1rem;padding:.3rem;width:20rem}
button,.button{background:#1f883d;color:#fff;border:0;border-radius:6px;padding:.5rem 1rem;font-size:1rem;text-decoration:none;cursor:pointer}
.error{color:#cf222e;font-weight:600}code{background:#f6f8fa;padding:0 .2rem}</style></head>
<body><header><b>local GitHub</b></header><h1>${esc(title)}</h1>
${body}
</body></html>`;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
