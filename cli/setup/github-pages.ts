/** Where `switchboard setup github` is, for its pages (and `GET /status`). */
export interface SetupStatus {
  phase: 'waiting' | 'converting' | 'installing' | 'done' | 'failed';
  app?: { name: string; id: number; slug: string; installUrl: string };
  installationId?: number;
  /** The GitHub part of `doctor`, once it ran. */
  lines?: string[];
  error?: string;
}

/**
 * The one page the operator's browser opens: what the App will be allowed and told, and a form
 * that posts the manifest to GitHub's "new App" page (GitHub asks for the name there).
 */
export function setupPage(options: {
  action: string;
  manifest: string;
  where: string;
  permissions: Array<{ name: string; access: string; why: string }>;
  events: Array<{ name: string; why: string }>;
  webhookUrl: string;
  envFile: string;
}): string {
  const permissions = options.permissions
    .map((p) => `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.access)}</td><td>${esc(p.why)}</td></tr>`)
    .join('');
  const events = options.events.map((e) => `<tr><td><code>${esc(e.name)}</code></td><td>${esc(e.why)}</td></tr>`).join('');
  return page(
    "Switchboard's GitHub App",
    `<p>This makes a GitHub App on <b>${esc(options.where)}</b> for this Switchboard deployment, from a manifest: GitHub
shows it to you, you name it and confirm, and GitHub sends you back here. Its id, private key and webhook secret go to
<code>${esc(options.envFile)}</code> (mode 0600), never to a config file.</p>
<form method="post" action="${esc(options.action)}">
<input type="hidden" name="manifest" value="${esc(options.manifest)}">
<button type="submit" id="create">Create the GitHub App on ${esc(options.where)}</button>
</form>
<h2>Permissions (exactly what Switchboard uses)</h2>
<table><tr><th>permission</th><th>access</th><th>why</th></tr>${permissions}</table>
<h2>Events</h2>
<table><tr><th>event</th><th>why</th></tr>${events}</table>
<p>Webhook: <code>${esc(options.webhookUrl)}</code>, JSON, signed with the App's secret.</p>`,
  );
}

/** After GitHub's redirect: the App made (or why not), the install link, and the check once installed (live). */
export function createdPage(status: SetupStatus): string {
  if (status.phase === 'failed' && !status.app)
    return page('The GitHub App was not made', `<p class="error" id="status">${esc(status.error ?? 'failed')}</p>`);
  const app = status.app!;
  return page(
    `GitHub App ${app.name} created`,
    `<p>Id ${app.id}; people mention it as <code>@${esc(app.slug)}</code>. Its credentials are in the env file.</p>
<p>Now install it on the repositories Switchboard may work on:</p>
<p><a class="button" id="install" href="${esc(app.installUrl)}" target="_blank" rel="noopener">Install ${esc(app.name)}</a> (in a new tab; this one follows along)</p>
<h2>Status</h2>
<p id="status">Waiting for the installation …</p>
<pre id="lines"></pre>
<script>
(async function poll() {
  try {
    const status = await (await fetch('/status')).json();
    if (status.phase === 'done' || status.phase === 'failed') {
      document.getElementById('status').textContent = status.phase === 'done'
        ? 'Installed (installation ' + status.installationId + '). Switchboard\\'s GitHub check:'
        : 'Not finished: ' + (status.error || 'see the check below');
      document.getElementById('lines').textContent = (status.lines || []).join('\\n');
      return;
    }
  } catch (error) {
    document.getElementById('status').textContent = 'The setup command has ended; see its terminal.';
    return;
  }
  setTimeout(poll, 1000);
})();
</script>`,
  );
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)} · Switchboard setup</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #d0d7de;padding:.2rem .5rem;text-align:left;vertical-align:top}
button,.button{background:#1f883d;color:#fff;border:0;border-radius:6px;padding:.6rem 1.1rem;font-size:1rem;text-decoration:none;cursor:pointer;display:inline-block}
.error{color:#cf222e;font-weight:600}pre{background:#f6f8fa;padding:.5rem;white-space:pre-wrap}pre:empty{display:none}code{background:#f6f8fa;padding:0 .2rem}</style></head>
<body><h1>${esc(title)}</h1>
${body}
</body></html>`;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
