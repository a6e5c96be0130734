import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Page } from 'playwright-core';
import { appPermissions } from '../activities/github/app-permissions';
import { parseEnvFile } from '../infra/config';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import { GITHUB_WEBHOOK_EVENTS } from '../server/github-event-routing';
import { runDoctor } from '../cli/commands/doctor';
import { runSetupGitHub } from '../cli/setup/github';
import { launchChromium, type Browser } from './helpers/browser';
import { freePort } from './helpers/ports';
import { spawnSwitchboard, type SwitchboardProcess } from './helpers/switchboard-process';
import { testTemporalAddress, uniqueTaskQueue } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(180_000);

/**
 * `switchboard setup github` from a fresh folder against the local GitHub (laid out as GitHub
 * Enterprise Server: `--github-url`), clicked through in headless Chromium as a person would:
 * the setup page, GitHub's "Create GitHub App" page, back to setup, GitHub's install page. The
 * deployment then starts with nothing but the env file the command wrote, and `doctor --only
 * github` passes, its webhook test delivery verified by Switchboard's own signature check.
 */
describe('switchboard setup github', () => {
  let dir: string;
  let github: LocalGitHub;
  let browser: Browser;
  let server: SwitchboardProcess | undefined;
  const shots = join(tmpdir(), 'switchboard-setup-github-shots');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'setup-github-'));
    mkdirSync(shots, { recursive: true });
    github = await startLocalGitHub({ tokens: { read: [], write: [] } });
    github.createRepo('acme', 'invoices', { 'README.md': '# invoices\n' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await server?.stop();
    await browser?.close();
    await github?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes the App from its manifest in a browser, writes the env file alone, and the started deployment passes doctor', async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    const output: string[] = [];
    let opened!: (url: string) => void;
    const pageUrl = new Promise<string>((resolve) => (opened = resolve));
    const setup = runSetupGitHub({
      githubUrl: github.gitUrl,
      publicUrl,
      name: 'Switchboard Acme',
      cwd: dir,
      env: { PATH: process.env.PATH },
      write: (line) => output.push(line),
      onListening: opened,
      timeoutMs: 120_000,
    });

    const page = await browser.context.newPage();
    await page.goto(await pageUrl);
    await shot(page, '1-setup-page');
    expect(await page.locator('h1').textContent()).toBe("Switchboard's GitHub App");
    // The page lists what the App will hold: the code's own lists.
    const listed = await page.locator('table').first().locator('td code').allTextContents();
    expect(listed).toEqual(Object.keys(appPermissions()));
    await page.click('#create');

    // GitHub's page (the local one): the manifest shown, the name editable.
    await page.waitForURL(`${github.gitUrl}/settings/apps/new?state=*`);
    await shot(page, '2-github-create');
    expect(await page.locator('input[name=name]').inputValue()).toBe('Switchboard Acme');
    await page.click('button:has-text("Create GitHub App for local-admin")');

    // Back on the setup page, which exchanged the code and offers the install.
    await page.waitForURL(`${(await pageUrl).replace(/\/$/, '')}/created?code=*`);
    await shot(page, '3-created');
    expect(await page.locator('h1').textContent()).toBe('GitHub App Switchboard Acme created');
    // GitHub's install page opens in a tab of its own; the setup page follows along.
    const [install] = await Promise.all([browser.context.waitForEvent('page'), page.click('#install')]);
    await install.waitForURL(`${github.gitUrl}/apps/switchboard-acme/installations/new`);
    await shot(install, '4-github-install');
    await install.click('button:has-text("Install")');
    await install.waitForURL(`${github.gitUrl}/settings/installations/*`);

    const code = await setup;
    await page.locator('#status', { hasText: 'Installed (installation' }).waitFor();
    await shot(page, '5-setup-done');
    expect(await page.locator('#lines').textContent()).toContain('ok    github installation:');
    expect(output.join('\n')).toContain('Created the GitHub App Switchboard Acme');
    expect(code).toBe(0);

    // GitHub holds exactly the permissions and events of the code's lists.
    const app = [...github.apps.apps.values()].find((each) => each.slug === 'switchboard-acme')!;
    expect(app.permissions).toEqual(appPermissions());
    expect(app.events).toEqual(GITHUB_WEBHOOK_EVENTS.map((entry) => entry.event));
    expect(app.hook).toEqual({ url: `${publicUrl}/webhooks/github`, active: true, contentType: 'json' });
    // Its ping went out at once and failed: nothing listened there yet.
    expect(app.sender!.deliveries[0]).toMatchObject({ event: 'ping' });
    expect(app.sender!.deliveries[0].status).toBeUndefined();

    // The secrets went to the env file alone, for this user only; no config file was written.
    const envFile = join(dir, 'switchboard.env');
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    expect(existsSync(join(dir, 'switchboard.yaml'))).toBe(false);
    const written = Object.fromEntries(parseEnvFile(readFileSync(envFile, 'utf8')));
    const installation = app.installations[0];
    expect(written).toEqual({
      GITHUB_APP_ID: String(app.id),
      GITHUB_APP_PRIVATE_KEY: app.pem!.trim().replace(/\n/g, '\\n'),
      GITHUB_WEBHOOK_SECRET: app.webhookSecret,
      GITHUB_BOT_LOGIN: 'switchboard-acme[bot]',
      GITHUB_API_URL: github.apiUrl,
      GITHUB_GIT_URL: github.gitUrl,
      SWITCHBOARD_PUBLIC_URL: publicUrl,
      GITHUB_APP_INSTALLATION_ID: String(installation),
    });
    // The setup's own check: the App, its installation and its tokens pass; the webhook waits for a restart.
    expect(output).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ok {4}github app: Switchboard Acme \(id \d+, bot switchboard-acme\[bot\]\)/),
        'ok    github app: all 6 permissions and 7 events Switchboard uses',
        expect.stringMatching(/^ok {4}github installation: \d+ on local-admin \(all repositories\)/),
        expect.stringMatching(/^ok {4}github write identity: the App \d+ \(a write token minted\)/),
        expect.stringMatching(/^WARN {2}github webhook test delivery: .*expected until Switchboard runs with the new secret/),
      ]),
    );
    // The conversion code worked once.
    const again = await fetch(`${github.apiUrl}/app-manifests/${new URL(page.url()).searchParams.get('code') ?? 'x'}/conversions`, {
      method: 'POST',
    });
    expect(again.status).toBe(404);

    // The deployment starts from the env file alone (no secret in its environment) and doctor's GitHub part passes.
    server = spawnSwitchboard({
      cwd: dir,
      args: ['server'],
      env: {
        SWITCHBOARD_ENV_FILE: envFile,
        TEMPORAL_ADDRESS: testTemporalAddress(),
        SWITCHBOARD_TASK_QUEUE: uniqueTaskQueue('setup-github'),
        SWITCHBOARD_DATA_DIR: join(dir, 'data'),
        PORT: String(port),
      },
    });
    await waitUntil(
      () =>
        fetch(`${publicUrl}/healthz`).then(
          (response) => response.status,
          () => 0,
        ),
      (status) => status === 200 || status === 503,
      60_000,
    );
    const lines: string[] = [];
    const doctor = await runDoctor({ env: { PATH: process.env.PATH }, cwd: dir, only: ['github'], write: (line) => lines.push(line) });
    console.log(`switchboard doctor --only github, after setup github:\n${lines.join('\n')}`);
    expect(lines).toContain(
      'ok    github webhook test delivery: the ping, sent again, reached Switchboard and passed its signature check (HTTP 202)',
    );
    expect(lines.filter((line) => line.startsWith('FAIL') || line.startsWith('WARN'))).toEqual([]);
    expect(doctor).toBe(0);
    await waitUntil(
      async () => server!.output(),
      (text) => text.includes('GitHub webhook ping: the signature checks with GITHUB_WEBHOOK_SECRET'),
      10_000,
    );
  });

  it('refuses a return that is not its own (the state), and names the missing public URL', async () => {
    const output: string[] = [];
    let opened!: (url: string) => void;
    const pageUrl = new Promise<string>((resolve) => (opened = resolve));
    const other = mkdtempSync(join(tmpdir(), 'setup-github-'));
    const setup = runSetupGitHub({
      githubUrl: github.gitUrl,
      publicUrl: 'http://127.0.0.1:9',
      cwd: other,
      env: {},
      write: (line) => output.push(line),
      onListening: opened,
      timeoutMs: 5_000,
    });
    const forged = await fetch(`${(await pageUrl).replace(/\/$/, '')}/created?code=abc&state=not-ours`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('its state does not match');
    expect(await setup).toBe(1);
    expect(output[output.length - 1]).toBe('setup github: no App was created and installed in time; run it again');
    expect(existsSync(join(other, 'switchboard.env'))).toBe(false);

    const lines: string[] = [];
    expect(await runSetupGitHub({ cwd: other, env: {}, write: (line) => lines.push(line) })).toBe(1);
    expect(lines).toEqual([
      'setup github: GitHub must reach this deployment: set http.publicUrl (SWITCHBOARD_PUBLIC_URL) or pass --public-url',
    ]);
    rmSync(other, { recursive: true, force: true });
  });

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  }
});
