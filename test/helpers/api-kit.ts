import { cpSync, writeFileSync } from 'node:fs';
import { type Server } from 'node:http';
import { type Client } from '@temporalio/client';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { type GitHubIdentities } from '../../activities/github';
import { type AgentsConfigInput } from '../../agents';
import { hashToken, newToken } from '../../infra/api-tokens';
import { loadConfig, type LoadedConfig } from '../../infra/config';
import { createLogger } from '../../infra/logger';
import { projectRoot } from '../../infra/paths';
import { apiMountsFromConfig, doorFromConfig } from '../../server/api/from-config';
import { sessionMountFromConfig } from '../../server/session/from-config';
import { type SessionHub } from '../../server/session/hub';
import { createServerApp } from '../../server/app';
import { freePort } from './ports';
import { startRunKit, type RunKit, type RunKitOptions } from './run-kit';
import { KIT_SCRIPTS } from './scripts';

/** `examples/hello.yaml`, copied among the kit's scripts. */
export const KIT_HELLO = `scripted:${KIT_SCRIPTS}/hello.yaml`;

export interface KitToken {
  user: string;
  selfServe?: boolean;
  agents?: string[];
  requestsPerMinute?: number;
}

export interface ApiKit {
  kit: RunKit;
  loaded: LoadedConfig;
  /** The secrets the door's unit preflight sees (GitHub tokens when the kit has identities). */
  secrets: NodeJS.ProcessEnv;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The bearer token of each named token. */
  tokens: Record<string, string>;
  /** The token entries as `SWITCHBOARD_API_TOKENS` takes them (hashes only). */
  tokensJson: string;
  /** The session pages' hub, when they are mounted. */
  sessionHub?: SessionHub;
  /** A request to `/api/v1<path>` with a token (by name) and a JSON body. */
  call(path: string, options?: { as?: string; method?: string; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * A run kit (worker with the real bundle and activities, scripted models) plus the real
 * Express app with the API and MCP mounted from a real switchboard.yaml in the kit's folder.
 * `examples/hello.yaml` is copied among the kit's scripts (`KIT_HELLO`), the one scripted
 * directory the kit's worker reads and the only models its messages may choose.
 */
export async function startApiKit(
  label: string,
  options: {
    tokens: Record<string, KitToken>;
    agents?: AgentsConfigInput;
    api?: Record<string, unknown>;
    github?: GitHubIdentities;
    sandboxProbe?: RunKitOptions['sandboxProbe'];
    /** The `admission` section (operators, GitHub roles). */
    admission?: Record<string, unknown>;
    /** The `spend` section (spend caps), for the worker and the server's doors alike. */
    spend?: RunKitOptions['spend'];
    /** `prices.models`: what the runs' turns cost (none by default). */
    prices?: RunKitOptions['prices'];
    /**
     * Mount the session pages too (`/session`), their links signed with `secret`; `client` is the
     * one their hub reads Temporal with (a test counts its queries), `env` more secrets the pages
     * redact.
     */
    sessions?: { secret: string; client?: Client; env?: NodeJS.ProcessEnv };
  },
): Promise<ApiKit> {
  // Over HTTP and MCP a message may choose only an allowed model: here, the kit's scripts.
  const kit = await startRunKit(label, {
    allowedModels: [`scripted:${KIT_SCRIPTS}/*`],
    ...(options.agents ? { agents: options.agents } : {}),
    ...(options.github ? { github: options.github } : {}),
    ...(options.sandboxProbe ? { sandboxProbe: options.sandboxProbe } : {}),
    ...(options.spend ? { spend: options.spend } : {}),
    ...(options.prices ? { prices: options.prices } : {}),
  });
  cpSync(join(projectRoot(), 'examples', 'hello.yaml'), join(kit.dir, 'scripts', 'hello.yaml'));
  const tokens: Record<string, string> = {};
  const entries = Object.entries(options.tokens).map(([name, token]) => {
    tokens[name] = newToken();
    return { id: name, sha256: hashToken(tokens[name]), ...token };
  });
  // The server's doors admit by this config as the worker does: the same agents and allowed models.
  const port = await freePort();
  writeFileSync(
    join(kit.dir, 'switchboard.yaml'),
    stringify({
      agents: options.agents ?? {},
      models: { allowed: [`scripted:${KIT_SCRIPTS}/*`] },
      api: { ...options.api, tokens: entries },
      http: { host: '127.0.0.1', port },
      ...(options.admission ? { admission: options.admission } : {}),
      ...(options.spend ? { spend: options.spend } : {}),
    }),
  );
  const loaded = loadConfig({ env: { SWITCHBOARD_TASK_QUEUE: kit.taskQueue }, cwd: kit.dir });
  // The door's unit preflight reads the secrets the worker would have: the kit's GitHub identities, when it has them.
  const secrets: NodeJS.ProcessEnv = {
    ...(options.github ? { GITHUB_READ_TOKEN: 'kit', GITHUB_WRITE_TOKEN: 'kit' } : {}),
    ...(options.sessions ? { SWITCHBOARD_SESSION_SECRET: options.sessions.secret, ...options.sessions.env } : {}),
  };
  // API_KIT_LOG=error shows the server's own logs when a test needs them.
  const logger = createLogger({ level: process.env.API_KIT_LOG ?? 'silent' });
  const door = doorFromConfig(loaded, kit.env.client, 'http://127.0.0.1:8233', secrets);
  const mounts = apiMountsFromConfig(loaded, kit.env.client, logger, 'http://127.0.0.1:8233', secrets, undefined, door);
  const session = options.sessions
    ? sessionMountFromConfig(loaded, options.sessions.client ?? kit.env.client, door, logger, 'http://127.0.0.1:8233', undefined, secrets)
    : undefined;
  if (session) mounts.push(session.mount);
  const app = createServerApp({
    client: kit.env.client,
    logger,
    health: { namespace: 'default', taskQueue: kit.taskQueue, pingTemporal: async () => undefined, workerState: () => 'RUNNING' },
    mounts,
  });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(port, '127.0.0.1', () => resolve(listening));
  });
  const origin = `http://127.0.0.1:${port}`;
  return {
    kit,
    loaded,
    secrets,
    origin,
    tokens,
    tokensJson: JSON.stringify(entries),
    ...(session ? { sessionHub: session.hub } : {}),
    call(path, call = {}) {
      const headers: Record<string, string> = { ...call.headers };
      if (call.as) headers.authorization = `Bearer ${tokens[call.as]}`;
      if (call.body !== undefined) headers['content-type'] ??= 'application/json';
      return fetch(`${origin}/api/v1${path}`, {
        method: call.method ?? (call.body === undefined ? 'GET' : 'POST'),
        headers,
        ...(call.body !== undefined ? { body: typeof call.body === 'string' ? call.body : JSON.stringify(call.body) } : {}),
      });
    },
    async close() {
      session?.hub.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await kit.close();
    },
  };
}

/** Reads a Server-Sent Events stream to its end: each event's name and parsed data. */
export async function readEvents(response: Response): Promise<Array<{ event: string; data: unknown }>> {
  const text = await response.text();
  return text
    .split('\n\n')
    .map((block) => block.split('\n').filter((line) => !line.startsWith(':')))
    .filter((lines) => lines.some((line) => line.startsWith('data: ')))
    .map((lines) => ({
      event: lines.find((line) => line.startsWith('event: '))?.slice(7) ?? 'message',
      data: JSON.parse(
        lines
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n'),
      ) as unknown,
    }));
}
