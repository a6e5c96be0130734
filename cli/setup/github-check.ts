import { setTimeout as delay } from 'node:timers/promises';
import { createAppAuth } from '@octokit/auth-app';
import { type Octokit } from '@octokit/rest';
import { type LoadedConfig, readSecret } from '../../infra/config';
import { createOctokit, githubIdentitiesFromEnvironment } from '../../activities/github/identity';
import { covers, GITHUB_APP_PERMISSIONS } from '../../activities/github/app-permissions';
import { GITHUB_WEBHOOK_EVENTS, GITHUB_WEBHOOK_PATH } from '../../server/github-event-routing';
import { serverBaseUrl } from '../../infra/session-links';
import { type CheckLine } from './slack-check';

export interface GitHubCheckOptions {
  /**
   * `setup`: right after the App is made, Switchboard does not yet run with its webhook secret, so
   * a failed test delivery is a warning that says to restart; `doctor`: a failure.
   */
  context?: 'doctor' | 'setup';
  /** How long to wait for the test delivery's answer to show in the App's deliveries. */
  deliveryWaitMs?: number;
}

/**
 * The GitHub part of `switchboard doctor` for a deployment that acts as a GitHub App: the App
 * answers its JWT and holds every permission and event Switchboard uses (the one lists the
 * manifest is made from); the installation exists and holds them too; a read and a write token
 * can be minted; the App's webhook points at this deployment (`http.publicUrl` + /webhooks/github)
 * as JSON; and a test delivery — GitHub redelivering the App's ping, which changes nothing —
 * reaches Switchboard and passes its signature check. Personal tokens are checked only for
 * presence (the credential lines of `doctor`).
 */
export async function checkGitHubApp(loaded: LoadedConfig, env: NodeJS.ProcessEnv, options: GitHubCheckOptions = {}): Promise<CheckLine[]> {
  const { github } = loaded.config;
  const privateKey = readSecret('githubAppPrivateKey', env);
  if (!github.appId && !privateKey) return [];
  const missingSetting = [
    ...(github.appId ? [] : ['GITHUB_APP_ID']),
    ...(github.installationId ? [] : ['GITHUB_APP_INSTALLATION_ID']),
    ...(privateKey ? [] : ['GITHUB_APP_PRIVATE_KEY']),
  ];
  if (missingSetting.length > 0) {
    return [
      {
        line: `FAIL  github app: ${missingSetting.join(', ')} not set`,
        problem: `set ${missingSetting.join(', ')} (\`npx switchboard setup github\` writes them to the env file)`,
      },
    ];
  }
  const lines: CheckLine[] = [];
  const fail = (line: string, problem: string) => lines.push({ line: `FAIL  ${line}`, problem });
  let appClient: Octokit;
  let app: { name: string; slug: string; permissions: Record<string, string>; events: string[]; owner?: { login?: string } };
  try {
    const auth = createAppAuth({ appId: github.appId!, privateKey: privateKey!.replace(/\\n/g, '\n') });
    const { token } = await auth({ type: 'app' });
    appClient = createOctokit(github.apiUrl, token, github.requestTimeoutMs);
    app = (await appClient.request('GET /app')).data as typeof app;
  } catch (error) {
    fail(
      `github app: ${github.apiUrl} refused the App ${github.appId}: ${short(error)}`,
      'check GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY (the key of that App)',
    );
    return lines;
  }
  lines.push({ line: `ok    github app: ${app.name} (id ${github.appId}, bot ${app.slug}[bot]) at ${github.apiUrl}` });
  lines.push(
    ...coverage(
      'github app',
      app.permissions,
      app.events,
      'update the App (its settings, or `npx switchboard setup github` for a new one)',
    ),
  );
  if (github.botLogin.replace(/\[bot\]$/, '').toLowerCase() !== app.slug.toLowerCase()) {
    lines.push({
      line: `WARN  github bot login: github.botLogin is ${github.botLogin} but people mention this App as @${app.slug} (GITHUB_BOT_LOGIN=${app.slug}[bot])`,
    });
  }

  try {
    const installation = (await appClient.request('GET /app/installations/{installation_id}', { installation_id: github.installationId! }))
      .data as { account?: { login?: string } | null; repository_selection: string; permissions: Record<string, string>; events: string[] };
    lines.push({
      line: `ok    github installation: ${github.installationId} on ${installation.account?.login ?? '?'} (${installation.repository_selection === 'all' ? 'all repositories' : 'selected repositories'})`,
    });
    lines.push(
      ...coverage(
        'github installation',
        installation.permissions,
        installation.events,
        "accept the App's new permissions on the installation (its settings page on GitHub)",
      ),
    );
  } catch (error) {
    fail(
      `github installation: ${github.installationId} is not an installation of this App: ${short(error)}`,
      'install the App and set GITHUB_APP_INSTALLATION_ID to its id',
    );
    return lines;
  }

  const identities = githubIdentitiesFromEnvironment(github, (name) => readSecret(name, env));
  for (const scope of ['read', 'write'] as const) {
    try {
      await identities.tokenFor(scope);
      lines.push({ line: `ok    github ${scope} identity: the App ${github.appId} (a ${scope} token minted)` });
    } catch (error) {
      fail(`github ${scope} identity: no ${scope} token: ${short(error)}`, `let the installation grant what a ${scope} token needs`);
    }
  }
  lines.push(...(await checkWebhook(loaded, env, appClient, options)));
  return lines;
}

/** Every permission and event of the one lists that `permissions` and `events` lack, each named with why. */
function coverage(label: string, permissions: Record<string, string>, events: string[], fix: string): CheckLine[] {
  const lacking = GITHUB_APP_PERMISSIONS.filter((need) => !covers(permissions?.[need.name], need.write));
  const unheard = GITHUB_WEBHOOK_EVENTS.filter((need) => !(events ?? []).includes(need.event));
  if (lacking.length === 0 && unheard.length === 0) {
    return [
      {
        line: `ok    ${label}: all ${GITHUB_APP_PERMISSIONS.length} permissions and ${GITHUB_WEBHOOK_EVENTS.length} events Switchboard uses`,
      },
    ];
  }
  const lines: CheckLine[] = [
    ...lacking.map((need) => ({
      line: `FAIL  ${label} permission ${need.name}: ${permissions?.[need.name] ?? 'none'}, needs ${need.write} (${need.why})`,
    })),
    ...unheard.map((need) => ({ line: `FAIL  ${label} event ${need.event} is not subscribed (${need.why})` })),
  ];
  lines[lines.length - 1].problem = fix;
  return lines;
}

interface Delivery {
  id: number;
  guid: string;
  event: string;
  status_code: number;
  status: string;
}

/** The App's webhook: its URL and content type, the secret, and a test delivery (the ping, redelivered). */
async function checkWebhook(loaded: LoadedConfig, env: NodeJS.ProcessEnv, app: Octokit, options: GitHubCheckOptions): Promise<CheckLine[]> {
  const lines: CheckLine[] = [];
  const base = serverBaseUrl(loaded.config);
  const expected = base ? `${base}${GITHUB_WEBHOOK_PATH}` : undefined;
  let config: { url?: string; content_type?: string };
  try {
    config = (await app.request('GET /app/hook/config')).data;
  } catch (error) {
    return [
      {
        line: `FAIL  github webhook: the App has none (${short(error)})`,
        problem: `give the App a webhook at ${expected ?? '<public URL>/webhooks/github'}`,
      },
    ];
  }
  if (expected && config.url !== expected) {
    lines.push({
      line: `FAIL  github webhook: the App delivers to ${config.url ?? 'nowhere'}, this deployment listens at ${expected}`,
      problem: `set the App's webhook URL to ${expected} (or http.publicUrl to where GitHub reaches this server)`,
    });
  } else lines.push({ line: `ok    github webhook: ${config.url} (${config.content_type ?? '?'})` });
  if (config.content_type !== 'json') {
    lines.push({
      line: `FAIL  github webhook content type: ${config.content_type ?? '?'}`,
      problem: "set the App's webhook content type to application/json",
    });
  }
  if (!readSecret('githubWebhookSecret', env)) {
    lines.push({
      line: 'FAIL  github webhook secret: GITHUB_WEBHOOK_SECRET is not set',
      problem: "set GITHUB_WEBHOOK_SECRET to the App's webhook secret",
    });
    return lines;
  }
  const list = async () => (await app.request('GET /app/hook/deliveries', { per_page: 100 })).data as Delivery[];
  let before: Delivery[];
  try {
    before = await list();
  } catch (error) {
    lines.push({ line: `WARN  github webhook deliveries: cannot list them (${short(error)})` });
    return lines;
  }
  const ping = before.find((delivery) => delivery.event === 'ping');
  if (!ping) {
    lines.push({
      line: 'WARN  github webhook test delivery: the App has no ping delivery to send again (GitHub keeps deliveries for 3 days)',
    });
    return lines;
  }
  const newest = Math.max(...before.map((delivery) => delivery.id));
  try {
    await app.request('POST /app/hook/deliveries/{delivery_id}/attempts', { delivery_id: ping.id });
  } catch (error) {
    // An old delivery, or a GitHub Enterprise Server without redelivery: the other checks still stand.
    lines.push({ line: `WARN  github webhook test delivery: GitHub would not send the ping again (${short(error)})` });
    return lines;
  }
  const deadline = Date.now() + (options.deliveryWaitMs ?? 20_000);
  let attempt: Delivery | undefined;
  while (!attempt && Date.now() < deadline) {
    await delay(500);
    attempt = (await list().catch(() => [] as Delivery[])).find((delivery) => delivery.guid === ping.guid && delivery.id > newest);
  }
  const fix =
    'start Switchboard (or restart it) with GITHUB_WEBHOOK_SECRET from the env file, reachable at the webhook URL, then run `npx switchboard doctor`';
  if (attempt && attempt.status_code >= 200 && attempt.status_code < 300) {
    lines.push({
      line: `ok    github webhook test delivery: the ping, sent again, reached Switchboard and passed its signature check (HTTP ${attempt.status_code})`,
    });
  } else {
    const what = !attempt
      ? 'no answer recorded'
      : attempt.status_code
        ? `HTTP ${attempt.status_code} (${attempt.status})`
        : `no answer (${attempt.status})`;
    const line = `github webhook test delivery: the ping, sent again to ${config.url}, got ${what}`;
    if (options.context === 'setup') lines.push({ line: `WARN  ${line}; expected until Switchboard runs with the new secret` });
    else lines.push({ line: `FAIL  ${line}`, problem: fix });
  }
  return lines;
}

function short(error: unknown): string {
  const status = (error as { status?: number }).status;
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return status ? `HTTP ${status}: ${message}` : message;
}
