import { randomBytes } from 'node:crypto';
import { type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { createAppAuth } from '@octokit/auth-app';
import express from 'express';
import { envFilePath, loadConfig, withEnvFile, writeEnvFile, type LoadedConfig } from '../../infra/config';
import { createOctokit } from '../../activities/github/identity';
import { GITHUB_APP_PERMISSIONS } from '../../activities/github/app-permissions';
import { GITHUB_WEBHOOK_EVENTS, GITHUB_WEBHOOK_PATH } from '../../server/github-event-routing';
import { serverBaseUrl } from '../../infra/session-links';
import { githubAppManifest, githubUrls, newAppUrl, type GitHubUrls } from './github-manifest';
import { checkGitHubApp } from './github-check';
import { type CheckLine } from './slack-check';
import { createdPage, setupPage, type SetupStatus } from './github-pages';

export interface SetupGitHubOptions {
  /** Create the App for this organization instead of the signed-in account. */
  org?: string;
  /** GitHub Enterprise Server's URL (`https://ghe.example.com`); default the deployment's `github.*` URLs. */
  githubUrl?: string;
  /** Where GitHub reaches this deployment (default `http.publicUrl`). */
  publicUrl?: string;
  name?: string;
  /** The setup page's port on 127.0.0.1 (0: any free one). */
  port?: number;
  /** How long to wait for the browser (creation and installation). */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  write?: (line: string) => void;
  /** Told the setup page's URL once it listens (tests open it in a browser). */
  onListening?: (url: string) => void;
}

interface Conversion {
  id: number;
  slug: string;
  name: string;
  html_url: string;
  owner?: { login?: string } | null;
  pem: string;
  webhook_secret: string | null;
}

/**
 * `switchboard setup github`: makes the deployment's GitHub App from a manifest. It serves a
 * one-page form on 127.0.0.1 that posts GitHub's App manifest (exactly the permissions and events
 * the code uses) to the account's or organization's "new App" page; GitHub sends the browser back
 * with a one-time code, which is exchanged (`POST /app-manifests/{code}/conversions`) for the
 * App's id, private key and webhook secret. Those, the bot login and (for GitHub Enterprise
 * Server) the URLs go to the env file, mode 0600, never the config file. Then it waits for the
 * App to be installed, writes the installation id, and runs the GitHub part of `doctor`.
 * Returns the exit code.
 */
export async function runSetupGitHub(options: SetupGitHubOptions = {}): Promise<number> {
  const write = options.write ?? ((line: string) => console.log(line));
  const cwd = options.cwd ?? process.cwd();
  const baseEnv = options.env ?? process.env;
  const loaded = loadConfig({ env: withEnvFile(baseEnv, cwd), cwd });
  const urls = githubUrls(loaded.config.github, options.githubUrl);
  const publicUrl = (options.publicUrl ?? loaded.config.http.publicUrl ?? '').replace(/\/+$/, '');
  if (!/^https?:\/\//.test(publicUrl)) {
    write('setup github: GitHub must reach this deployment: set http.publicUrl (SWITCHBOARD_PUBLIC_URL) or pass --public-url');
    return 1;
  }
  const envFile = envFilePath(baseEnv, cwd);
  const state = randomBytes(16).toString('hex');
  const name = (options.name ?? `switchboard-${new URL(publicUrl).hostname}`).slice(0, 34);
  const status: SetupStatus = { phase: 'waiting' };
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  // Ends the wait for an installation when the command gives up, so nothing holds the process open.
  const givenUp = new AbortController();

  const app = express();
  let pageUrl = '';
  app.get('/', (_req, res) => {
    const manifest = githubAppManifest({
      name,
      homepage: publicUrl,
      webhookUrl: `${publicUrl}${GITHUB_WEBHOOK_PATH}`,
      redirectUrl: `${pageUrl}/created`,
    });
    res.type('html').send(
      setupPage({
        action: newAppUrl(urls.webUrl, state, options.org),
        manifest: JSON.stringify(manifest),
        where: `${new URL(urls.webUrl).host}${options.org ? ` for the organization ${options.org}` : ''}`,
        permissions: GITHUB_APP_PERMISSIONS.map((need) => ({ name: need.name, access: need.write, why: need.why })),
        events: GITHUB_WEBHOOK_EVENTS.map((need) => ({ name: need.event, why: need.why })),
        webhookUrl: `${publicUrl}${GITHUB_WEBHOOK_PATH}`,
        envFile,
      }),
    );
  });
  app.get('/created', async (req, res) => {
    if (req.query.state !== state || typeof req.query.code !== 'string' || status.phase !== 'waiting') {
      return void res
        .status(400)
        .type('html')
        .send(createdPage({ phase: 'failed', error: 'This link is not from this setup (its state does not match), or was used already.' }));
    }
    status.phase = 'converting';
    let created: Conversion;
    try {
      created = await convert(urls, req.query.code);
    } catch (error) {
      Object.assign(status, { phase: 'failed', error: `GitHub did not convert the code: ${(error as Error).message}` });
      write(`setup github: ${status.error}`);
      finish(1);
      return void res.type('html').send(createdPage(status));
    }
    try {
      const publicSetting =
        publicUrl !== (loaded.config.http.publicUrl ?? '').replace(/\/+$/, '')
          ? { SWITCHBOARD_PUBLIC_URL: publicUrl }
          : ({} as Record<string, string>);
      writeEnvFile(
        envFile,
        { ...credentialsOf(created, urls), ...publicSetting },
        `GitHub App ${created.slug}, made by \`switchboard setup github\` ${new Date().toISOString()}`,
      );
      Object.assign(status, {
        phase: 'installing',
        app: { name: created.name, id: created.id, slug: created.slug, installUrl: `${created.html_url}/installations/new` },
      });
      write(`Created the GitHub App ${created.name} (id ${created.id}, bot ${created.slug}[bot]) on ${new URL(urls.webUrl).host}.`);
      write(`Its id, private key, webhook secret and bot login are in ${envFile} (mode 0600).`);
      write(`Install it on the repositories Switchboard may work on: ${created.html_url}/installations/new`);
      write('Waiting for the installation ...');
      void waitForInstallation(urls, created, envFile, options, status, givenUp.signal).then(finish, (error: unknown) => {
        Object.assign(status, { phase: 'failed', error: (error as Error).message });
        write(`setup github: ${(error as Error).message}`);
        finish(1);
      });
    } catch (error) {
      // The App exists but its key (shown by GitHub once) could not be kept: say so, and how to get a new one.
      Object.assign(status, {
        phase: 'failed',
        error:
          `GitHub created the App ${created.name}, but ${envFile} could not be written (${(error as Error).message}). ` +
          `Make the file writable, then generate a new private key at ${created.html_url} and run setup again, or delete the App there.`,
      });
      write(`setup github: ${status.error}`);
      finish(1);
    }
    res.type('html').send(createdPage(status));
  });
  app.get('/status', (_req, res) => void res.json(status));

  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(options.port ?? 0, '127.0.0.1', () => resolve(listening));
  });
  pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  write(
    `Open ${pageUrl}/ in a browser on this machine to create Switchboard's GitHub App on ${new URL(urls.webUrl).host}${options.org ? ` for ${options.org}` : ''}.`,
  );
  write(
    `(On a remote host, forward the port first: ssh -L ${(server.address() as AddressInfo).port}:127.0.0.1:${(server.address() as AddressInfo).port} <host>.)`,
  );
  options.onListening?.(`${pageUrl}/`);
  const timeout = delay(options.timeoutMs ?? 30 * 60_000, 'timeout' as const, { ref: false });
  const outcome = await Promise.race([finished, timeout]);
  // Let the browser fetch the last status before the page goes away.
  await delay(1_500);
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (outcome === 'timeout') {
    givenUp.abort();
    write('setup github: no App was created and installed in time; run it again');
    return 1;
  }
  return outcome;
}

/** `POST /app-manifests/{code}/conversions`: no authentication; the code works once, within an hour. */
async function convert(urls: GitHubUrls, code: string): Promise<Conversion> {
  const response = await createOctokit(urls.apiUrl, undefined).request('POST /app-manifests/{code}/conversions', { code });
  return response.data as unknown as Conversion;
}

/** What the deployment needs of the App, as env file lines (the key's newlines as `\n`). */
function credentialsOf(created: Conversion, urls: GitHubUrls): Record<string, string> {
  return {
    GITHUB_APP_ID: String(created.id),
    GITHUB_APP_PRIVATE_KEY: created.pem.trim().replace(/\n/g, '\\n'),
    ...(created.webhook_secret ? { GITHUB_WEBHOOK_SECRET: created.webhook_secret } : {}),
    GITHUB_BOT_LOGIN: `${created.slug}[bot]`,
    ...(urls.enterprise ? { GITHUB_API_URL: urls.apiUrl, GITHUB_GIT_URL: urls.gitUrl } : {}),
  };
}

/**
 * Polls the App's installations (with its JWT) until one appears: the App is private to its
 * owner, so there is one; the newest wins when it was installed again. Then the installation id
 * goes to the env file and the GitHub part of `doctor` runs against the new settings.
 */
async function waitForInstallation(
  urls: GitHubUrls,
  created: Conversion,
  envFile: string,
  options: SetupGitHubOptions,
  status: SetupStatus,
  givenUp: AbortSignal,
): Promise<number> {
  const write = options.write ?? ((line: string) => console.log(line));
  const auth = createAppAuth({ appId: created.id, privateKey: created.pem });
  let installation: { id: number; account?: { login?: string } | null } | undefined;
  while (!installation) {
    if (givenUp.aborted) throw new Error('stopped waiting for the installation');
    const { token } = await auth({ type: 'app' });
    const found = (await createOctokit(urls.apiUrl, token).request('GET /app/installations')).data as Array<{
      id: number;
      account?: { login?: string } | null;
    }>;
    installation = found.sort((a, b) => b.id - a.id)[0];
    if (!installation) await delay(1_000, undefined, { signal: givenUp }).catch(() => undefined);
  }
  writeEnvFile(envFile, { GITHUB_APP_INSTALLATION_ID: String(installation.id) });
  write(`Installed (installation ${installation.id} on ${installation.account?.login ?? '?'}); its id is in ${envFile}.`);
  write('The GitHub part of `switchboard doctor`:');
  const cwd = options.cwd ?? process.cwd();
  const env = withEnvFile(options.env ?? process.env, cwd);
  const loaded: LoadedConfig = loadConfig({ env, cwd });
  const lines: CheckLine[] = await checkGitHubApp(loaded, env, { context: 'setup', deliveryWaitMs: 10_000 });
  for (const entry of lines) write(entry.line);
  const problems = lines.filter((entry) => entry.problem).map((entry) => entry.problem!);
  for (const problem of problems) write(`  - ${problem}`);
  const base = serverBaseUrl(loaded.config);
  write(
    `Next: (re)start Switchboard so it reads ${envFile}, then \`npx switchboard doctor --only github\` sends a test delivery to ${base || 'it'}.`,
  );
  Object.assign(status, {
    phase: problems.length ? 'failed' : 'done',
    installationId: installation.id,
    lines: lines.map((entry) => entry.line),
  });
  return problems.length ? 1 : 0;
}
