import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { envFilePath, loadConfig, withEnvFile, writeEnvFile } from '../../infra/config';
import { checkSlack } from './slack-check';
import { slackManifestYaml } from './slack-manifest';

export interface SetupSlackOptions {
  /** Where the manifest goes (default `slack-app-manifest.yaml` in the working directory). */
  out?: string;
  /** Where Slack reaches this deployment (default `http.publicUrl`). */
  publicUrl?: string;
  name?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  write?: (line: string) => void;
}

/**
 * `switchboard setup slack`: writes the Slack app manifest of this deployment (request URLs at its
 * public URL, the scopes, events, interactivity and slash commands of the code's own list) and
 * says the three steps in Slack. Returns the exit code.
 */
export function runSetupSlack(options: SetupSlackOptions = {}): number {
  const write = options.write ?? ((line: string) => console.log(line));
  const cwd = options.cwd ?? process.cwd();
  const loaded = loadConfig({ env: withEnvFile(options.env ?? process.env, cwd), cwd });
  const { slack, http } = loaded.config;
  const publicUrl = options.publicUrl ?? http.publicUrl;
  if (slack.mode === 'http' && !publicUrl) {
    write(
      'setup slack: Slack must reach this deployment: set http.publicUrl (SWITCHBOARD_PUBLIC_URL) or pass --public-url (or use Socket Mode)',
    );
    return 1;
  }
  const out = resolve(cwd, options.out ?? 'slack-app-manifest.yaml');
  const yaml = slackManifestYaml({
    name: options.name ?? 'Switchboard',
    ...(publicUrl ? { publicUrl } : {}),
    eventsPath: slack.eventsPath,
    mode: slack.mode,
  });
  writeFileSync(out, yaml);
  const envFile = envFilePath(options.env ?? process.env, cwd);
  const tokens =
    slack.mode === 'socket'
      ? 'the Bot User OAuth Token (xoxb-…) and an App-Level Token with connections:write (xapp-…)'
      : 'the Bot User OAuth Token (xoxb-…) and the Signing Secret';
  write(
    `Wrote the Slack app manifest of this deployment to ${out}${slack.mode === 'http' ? ` (events and interactivity at ${publicUrl!.replace(/\/+$/, '')}${slack.eventsPath})` : ' (Socket Mode)'}.`,
  );
  write('Then, in Slack:');
  write(`  1. https://api.slack.com/apps?new_app=1 → From a manifest → pick the workspace → paste ${out} → Create.`);
  write('  2. Install to Workspace → Allow.');
  write(
    `  3. Copy ${tokens}, and give them to \`npx switchboard setup slack --secrets\`: it writes them to ${envFile} (mode 0600) and checks the token's scopes.`,
  );
  return 0;
}

/**
 * `switchboard setup slack --secrets`: reads SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (SLACK_APP_TOKEN
 * in Socket Mode) from standard input, one `NAME=value` a line, or by asking on a terminal; writes
 * them to the env file and runs the Slack part of `doctor` with them.
 */
export async function runSetupSlackSecrets(
  options: SetupSlackOptions & { input?: NodeJS.ReadableStream; interactive?: boolean } = {},
): Promise<number> {
  const write = options.write ?? ((line: string) => console.log(line));
  const cwd = options.cwd ?? process.cwd();
  const loaded = loadConfig({ env: withEnvFile(options.env ?? process.env, cwd), cwd });
  const wanted =
    loaded.config.slack.mode === 'socket' ? ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN'] : ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET'];
  const given = await readSecrets(
    wanted,
    options.input ?? process.stdin,
    options.interactive ?? Boolean((process.stdin as { isTTY?: boolean }).isTTY),
    write,
  );
  const problems = [
    ...wanted.filter((name) => !given[name]).map((name) => `${name} was not given`),
    ...(given.SLACK_BOT_TOKEN && !given.SLACK_BOT_TOKEN.startsWith('xoxb-') ? ['SLACK_BOT_TOKEN is not a bot token (xoxb-…)'] : []),
    ...(given.SLACK_APP_TOKEN && !given.SLACK_APP_TOKEN.startsWith('xapp-') ? ['SLACK_APP_TOKEN is not an app-level token (xapp-…)'] : []),
  ];
  if (problems.length > 0) {
    for (const problem of problems) write(`setup slack: ${problem}`);
    return 1;
  }
  const envFile = envFilePath(options.env ?? process.env, cwd);
  writeEnvFile(envFile, given, `Slack app, given to \`switchboard setup slack --secrets\` ${new Date().toISOString()}`);
  write(`Wrote ${wanted.join(' and ')} to ${envFile} (mode 0600). The Slack part of \`switchboard doctor\`:`);
  const env = withEnvFile(options.env ?? process.env, cwd);
  // The file's new values win over what the environment held before (this is the point of the command).
  Object.assign(env, given);
  const lines = await checkSlack(loadConfig({ env, cwd }), env);
  for (const entry of lines) write(entry.line);
  const failed = lines.filter((entry) => entry.problem);
  for (const entry of failed) write(`  - ${entry.problem}`);
  return failed.length ? 1 : 0;
}

async function readSecrets(
  names: string[],
  input: NodeJS.ReadableStream,
  interactive: boolean,
  write: (line: string) => void,
): Promise<Record<string, string>> {
  const given: Record<string, string> = {};
  const lines = createInterface({ input, terminal: false });
  if (interactive) {
    const iterator = lines[Symbol.asyncIterator]();
    for (const name of names) {
      write(`${name}:`);
      const next = await iterator.next();
      if (next.done) break;
      given[name] = String(next.value).trim();
    }
  } else {
    for await (const line of lines) {
      const match = /^\s*([A-Z_]+)\s*=\s*(.*?)\s*$/.exec(line);
      if (match && names.includes(match[1])) given[match[1]] = match[2];
    }
  }
  lines.close();
  return given;
}
