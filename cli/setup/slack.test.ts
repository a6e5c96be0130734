import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parse } from 'yaml';
import { slackBotEvents, slackBotScopes } from '../../activities/slack/app-needs';
import { loadConfig, parseEnvFile } from '../../infra/config';
import { startLocalSlack, type LocalSlack } from '../../emulators/local-slack';
import { runDoctor } from '../commands/doctor';
import { checkSlack } from './slack-check';
import { runSetupSlack, runSetupSlackSecrets } from './slack';

type Manifest = {
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    event_subscriptions: { request_url?: string; bot_events: string[] };
    interactivity: { is_enabled: boolean; request_url?: string };
    socket_mode_enabled: boolean;
  };
  features: { bot_user: { display_name: string } };
};

describe('switchboard setup slack', () => {
  let dir: string;
  const slacks: LocalSlack[] = [];
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'setup-slack-'))));
  afterEach(async () => {
    rmSync(dir, { recursive: true, force: true });
    for (const slack of slacks.splice(0)) await slack.close();
  });

  it("writes this deployment's manifest from the code's own lists and says the three steps", () => {
    const lines: string[] = [];
    const env = { SWITCHBOARD_PUBLIC_URL: 'https://sb.acme.example/' };
    expect(runSetupSlack({ cwd: dir, env, write: (line) => lines.push(line) })).toBe(0);
    const text = readFileSync(join(dir, 'slack-app-manifest.yaml'), 'utf8');
    const manifest = parse(text) as Manifest;
    expect(manifest.oauth_config.scopes.bot).toEqual(slackBotScopes().map((need) => need.scope));
    expect(manifest.settings.event_subscriptions).toEqual({
      request_url: 'https://sb.acme.example/slack/events',
      bot_events: slackBotEvents(),
    });
    expect(manifest.settings.interactivity).toEqual({ is_enabled: true, request_url: 'https://sb.acme.example/slack/events' });
    expect(manifest.settings.socket_mode_enabled).toBe(false);
    // Each scope says why it is asked for.
    expect(text).toContain('- chat:write   # the status card, answers and refusals');
    expect(lines[0]).toBe(
      `Wrote the Slack app manifest of this deployment to ${join(dir, 'slack-app-manifest.yaml')} (events and interactivity at https://sb.acme.example/slack/events).`,
    );
    expect(lines.filter((line) => /^ {2}\d\. /.test(line))).toHaveLength(3);
    expect(lines.join('\n')).toContain(`writes them to ${join(dir, 'switchboard.env')} (mode 0600)`);

    // Socket Mode: no request URLs, and none needed.
    expect(runSetupSlack({ cwd: dir, env: { SWITCHBOARD_SLACK_MODE: 'socket' }, out: 'socket.yaml', write: () => undefined })).toBe(0);
    const socket = parse(readFileSync(join(dir, 'socket.yaml'), 'utf8')) as Manifest;
    expect(socket.settings).toMatchObject({
      socket_mode_enabled: true,
      interactivity: { is_enabled: true },
      event_subscriptions: { bot_events: slackBotEvents() },
    });
    expect(socket.settings.event_subscriptions.request_url).toBeUndefined();
    // HTTP mode without a public URL cannot be made.
    const refused: string[] = [];
    expect(runSetupSlack({ cwd: dir, env: {}, write: (line) => refused.push(line) })).toBe(1);
    expect(refused[0]).toMatch(/Slack must reach this deployment: set http\.publicUrl/);
  });

  it('passes doctor with the scopes installing the manifest grants, and names each one missing', async () => {
    runSetupSlack({ cwd: dir, env: { SWITCHBOARD_PUBLIC_URL: 'https://sb.acme.example' }, write: () => undefined });
    const granted = (parse(readFileSync(join(dir, 'slack-app-manifest.yaml'), 'utf8')) as Manifest).oauth_config.scopes.bot;
    const installed = await startLocalSlack({ botToken: 'xoxb-installed', scopes: granted });
    const short = await startLocalSlack({ botToken: 'xoxb-short', scopes: granted.filter((scope) => scope !== 'files:write') });
    slacks.push(installed, short);
    const check = (slack: LocalSlack, token: string) => {
      const env = { SLACK_BOT_TOKEN: token, SLACK_SIGNING_SECRET: 's', SLACK_API_URL: slack.apiUrl };
      return checkSlack(loadConfig({ env, cwd: dir }), env);
    };
    expect((await check(installed, 'xoxb-installed')).map((entry) => entry.line)).toEqual([
      'ok    slack: the bot switchboard (U0SWITCHBOARD) of workspace local (T0LOCAL)',
      `ok    slack scopes: all ${granted.length} the app uses are granted`,
    ]);
    const missing = await check(short, 'xoxb-short');
    expect(missing.map((entry) => entry.line)).toContain(
      'FAIL  slack scope files:write is missing: attach_file (the external upload flow)',
    );
    expect(missing.find((entry) => entry.problem)?.problem).toMatch(
      /^add the missing Slack scopes \(files:write\): regenerate the manifest/,
    );
    expect((await check(installed, 'xoxb-wrong'))[0].line).toMatch(
      /^FAIL {2}slack: auth\.test at .*: Slack refused the token \(invalid_auth\)/,
    );

    // And the local Slack refuses a call whose scope was not granted, as Slack does.
    const refused = await fetch(`${short.apiUrl}files.getUploadURLExternal`, {
      method: 'POST',
      headers: { authorization: 'Bearer xoxb-short', 'content-type': 'application/json' },
      body: JSON.stringify({ filename: 'a.txt', length: 1 }),
    });
    expect(refused.headers.get('x-oauth-scopes')).toBe(granted.filter((scope) => scope !== 'files:write').join(','));
    expect(await refused.json()).toMatchObject({ ok: false, error: 'missing_scope', needed: 'files:write' });
  });

  it('--secrets writes the tokens to the env file (0600) and checks them; doctor reads them from there', async () => {
    const slack = await startLocalSlack({ botToken: 'xoxb-from-stdin' });
    slacks.push(slack);
    const lines: string[] = [];
    const env = { SLACK_API_URL: slack.apiUrl, PATH: process.env.PATH };
    const input = Readable.from(['SLACK_BOT_TOKEN=xoxb-from-stdin\n', 'SLACK_SIGNING_SECRET=signing-secret-1\n']);
    expect(await runSetupSlackSecrets({ cwd: dir, env, input, interactive: false, write: (line) => lines.push(line) })).toBe(0);
    const envFile = join(dir, 'switchboard.env');
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    expect(Object.fromEntries(parseEnvFile(readFileSync(envFile, 'utf8')))).toEqual({
      SLACK_BOT_TOKEN: 'xoxb-from-stdin',
      SLACK_SIGNING_SECRET: 'signing-secret-1',
    });
    expect(lines).toContain(`ok    slack scopes: all ${slackBotScopes().length} the app uses are granted`);
    const doctor: string[] = [];
    expect(await runDoctor({ env, cwd: dir, only: ['slack'], write: (line) => doctor.push(line) })).toBe(0);
    expect(doctor).toContain('ok    slack: the bot switchboard (U0SWITCHBOARD) of workspace local (T0LOCAL)');

    const bad: string[] = [];
    const wrong = Readable.from(['SLACK_BOT_TOKEN=xapp-not-a-bot\n']);
    expect(await runSetupSlackSecrets({ cwd: dir, env, input: wrong, interactive: false, write: (line) => bad.push(line) })).toBe(1);
    expect(bad).toEqual(['setup slack: SLACK_SIGNING_SECRET was not given', 'setup slack: SLACK_BOT_TOKEN is not a bot token (xoxb-…)']);
  });
});
