import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { stringify } from 'yaml';
import { hashToken, newToken } from '../../infra/api-tokens';
import { type LocalGitHub } from '../../emulators/local-github';
import { startLocalSlack, type LocalSlack } from '../../emulators/local-slack';
import { projectRoot } from '../../infra/paths';
import { runCli, type CliResult } from './cli';
import { asNobody, nobodyRuntime, type NobodyRuntime } from './other-user';
import { freePort } from './ports';
import { KIT_SCRIPTS } from './scripts';
import { testTemporalAddress, uniqueTaskQueue } from './temporal';

export const SLACK_BOT_TOKEN = 'xoxb-deployment-token';
export const SLACK_SIGNING_SECRET = 'deployment-signing-secret';
export const SLACK_TEAM = 'T0LOCAL';
export const SLACK_BOT = 'U0SWITCHBOARD';
export const WEBHOOK_SECRET = 'deployment-webhook-secret';

/**
 * The whole product as `npm start` runs it (`node dist/infra/main.js`: the worker and every front
 * end in one process) on the suite's Temporal, its own task queue, a local Slack of its own and
 * a shared local GitHub, configured by a real switchboard.yaml. Optionally run as `nobody`, so
 * its sandbox is really unavailable.
 */
export interface Deployment {
  dir: string;
  taskQueue: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  slack: LocalSlack;
  /** The bearer token of each named API token. */
  tokens: Record<string, string>;
  /** Writes a scripted model among the deployment's scripts and returns its id, `scripted:kit/<name>.yaml`. */
  script(name: string, turns: unknown[]): string;
  /** A request to `/api/v1<path>` as a named token. */
  api(path: string, options?: { as?: string; method?: string; body?: unknown }): Promise<Response>;
  /** An MCP tool call over streamable HTTP as a named token. */
  mcp(as: string, tool: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** `bin/switchboard.js` from the deployment's folder, as root or as `nobody` (another operator). */
  cli(args: string[], options?: { asNobody?: boolean }): Promise<CliResult>;
  /** Everything the process wrote. */
  output(): string;
  close(): Promise<void>;
}

export interface DeploymentOptions {
  github: LocalGitHub;
  githubTokens: { read: string; write: string };
  /** The port the product serves on (chosen beforehand when the local GitHub must deliver to it). */
  port?: number;
  /** Sections of switchboard.yaml (`agents`, `admission`, …) beside the ones the deployment writes. */
  config: Record<string, unknown>;
  apiTokens: Record<string, { user: string; admin?: boolean }>;
  asNobody?: boolean;
  /** More environment for the product (e.g. `SWITCHBOARD_SESSION_SECRET`, which signs session page links). */
  env?: Record<string, string>;
}

export async function startDeployment(label: string, options: DeploymentOptions): Promise<Deployment> {
  const dir = mkdtempSync(join(tmpdir(), `switchboard-${label}-`));
  const scripts = join(dir, 'scripts');
  const dataDir = join(dir, 'data');
  mkdirSync(scripts);
  mkdirSync(dataDir);
  // A product running as nobody reads the config and scripts and writes its data here.
  chmodSync(dir, 0o755);
  chmodSync(scripts, 0o755);
  chmodSync(dataDir, 0o777);
  const taskQueue = uniqueTaskQueue(label);
  const port = options.port ?? (await freePort());
  const origin = `http://127.0.0.1:${port}`;
  const slack = await startLocalSlack({
    botToken: SLACK_BOT_TOKEN,
    team: { id: SLACK_TEAM, name: 'local' },
    bot: { userId: SLACK_BOT, botId: 'B0SWITCHBOARD', name: 'switchboard' },
  });
  const tokens: Record<string, string> = {};
  const entries = Object.entries(options.apiTokens).map(([id, token]) => {
    tokens[id] = newToken();
    return { id, sha256: hashToken(tokens[id]), ...token };
  });
  writeFileSync(
    join(dir, 'switchboard.yaml'),
    stringify({
      ...options.config,
      models: { allowed: [`scripted:${KIT_SCRIPTS}/*`], scriptedDirs: { [KIT_SCRIPTS]: scripts } },
      api: { tokens: entries },
      slack: { apiUrl: slack.apiUrl },
      github: { apiUrl: options.github.apiUrl, gitUrl: options.github.gitUrl, botLogin: 'switchboard' },
    }),
  );
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: '/tmp',
    LOG_LEVEL: 'warn',
    SWITCHBOARD_LOG_FORMAT: 'json',
    TEMPORAL_ADDRESS: testTemporalAddress(),
    SWITCHBOARD_TASK_QUEUE: taskQueue,
    SWITCHBOARD_DATA_DIR: dataDir,
    PORT: String(port),
    SLACK_BOT_TOKEN,
    SLACK_SIGNING_SECRET,
    GITHUB_READ_TOKEN: options.githubTokens.read,
    GITHUB_WRITE_TOKEN: options.githubTokens.write,
    GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET,
    ...options.env,
  };
  // What runs as nobody runs from a runtime it may read (the checkout may be closed to it).
  let runtime: NobodyRuntime | undefined;
  const forNobody = () => (runtime ??= nobodyRuntime());
  const child: ChildProcess = options.asNobody
    ? spawn('setpriv', asNobody([forNobody().node, join(forNobody().root, 'dist', 'infra', 'main.js')]).slice(1), {
        cwd: dir,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, [join(projectRoot(), 'dist', 'infra', 'main.js')], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = once(child, 'exit');
  // Ready once Slack's front end has passed auth.test: an unsigned event is then 401, not 503.
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the product exited before it was ready:\n${text}`);
    const status = await fetch(`${origin}/slack/events`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 401) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the product was not ready within 120 s (last status ${status}):\n${text}`);
    }
    await delay(250);
  }
  slack.deliverTo(`${origin}/slack/events`, SLACK_SIGNING_SECRET);
  const mcpClients: McpClient[] = [];
  const mcpFor = new Map<string, Promise<McpClient>>();
  const connect = async (as: string) => {
    const client = new McpClient({ name: 'admission-matrix', version: '1.0.0' });
    mcpClients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${tokens[as]}` } } }),
    );
    return client;
  };
  return {
    dir,
    taskQueue,
    origin,
    slack,
    tokens,
    script(name, turns) {
      const file = join(scripts, `${name}.yaml`);
      writeFileSync(file, stringify({ turns }));
      chmodSync(file, 0o644);
      return `scripted:${KIT_SCRIPTS}/${name}.yaml`;
    },
    api(path, call = {}) {
      return fetch(`${origin}/api/v1${path}`, {
        method: call.method ?? (call.body === undefined ? 'GET' : 'POST'),
        headers: {
          ...(call.as ? { authorization: `Bearer ${tokens[call.as]}` } : {}),
          ...(call.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
      });
    },
    async mcp(as, tool, args) {
      if (!mcpFor.has(as)) mcpFor.set(as, connect(as));
      const client = await mcpFor.get(as)!;
      return (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    },
    cli(args, cliOptions = {}) {
      // The CLI's own preflight reads the GitHub identities a unit needs, as an operator's shell would have them.
      const secrets = { GITHUB_READ_TOKEN: options.githubTokens.read, GITHUB_WRITE_TOKEN: options.githubTokens.write };
      if (!cliOptions.asNobody) return runCli({ dir, taskQueue }, args, secrets);
      const { node, root } = forNobody();
      return runCliAs(dir, taskQueue, secrets, asNobody([node, join(root, 'bin', 'switchboard.js'), ...args]));
    },
    output: () => text,
    async close() {
      for (const client of mcpClients) await client.close().catch(() => undefined);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        await exited;
        clearTimeout(killer);
      }
      await slack.close();
      rmSync(dir, { recursive: true, force: true });
      runtime?.remove();
    },
  };
}

/** The CLI as another user (a command line starting with setpriv), from the deployment's folder. */
async function runCliAs(dir: string, taskQueue: string, secrets: Record<string, string>, argv: string[]): Promise<CliResult> {
  const child = spawn(argv[0], argv.slice(1), {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: '/tmp',
      TEMPORAL_ADDRESS: testTemporalAddress(),
      SWITCHBOARD_TASK_QUEUE: taskQueue,
      LOG_LEVEL: 'warn',
      ...secrets,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code: code ?? 1, stdout, stderr };
}
