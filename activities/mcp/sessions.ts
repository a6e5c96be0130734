// Types of the SDK's ESM build, which the lazy `import()`s below load: a worker that runs no MCP
// server never loads the SDK (test/worker-imports.test.ts).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js' with { 'resolution-mode': 'import' };
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js' with { 'resolution-mode': 'import' };
import type { McpServerConfig } from '../../infra/config/mcp-section';
import { commandEnvironment } from '../sandbox/command-environment';
import { egressAllowFor, type EgressSettings } from '../sandbox/network/door-grant';
import { SandboxUnavailable, type SandboxHost } from '../sandbox/sandbox-host';
import { currentActivityContext } from '../sandbox/activity-context';
import { markUsed } from '../sandbox/workspace-layout';
import { guardedFetch, type McpResolver } from './guarded-fetch';
import type { McpRunRef } from '../../workflows/contracts/mcp-calls';

/** Bytes of one message a server may send (a stdio line, an HTTP body): past it the session ends as `too_large`. */
export const MCP_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
/** Lines of a stdio server's stderr kept, to say why it stopped. */
const STDERR_LINES = 20;
/** A run's session unused this long is closed (a run that ended on another worker never closes it here). */
export const MCP_IDLE_MS = 15 * 60_000;
/** A server that crashed this often in one run is not started again for it. */
export const MCP_MAX_CRASHES = 3;

export interface McpSessionDeps {
  servers: Record<string, McpServerConfig>;
  /** Where stdio servers run: the workspaces' sandboxes. */
  sandboxHost?: SandboxHost;
  /** The sandbox's egress settings and git host, for the door while a stdio server runs. */
  egress?: EgressSettings;
  gitBaseUrl?: string;
  /** The worker's environment, where HTTP servers' credentials are read (process.env by default). */
  env?: NodeJS.ProcessEnv;
  /** Name resolution for HTTP servers (tests); the system resolver otherwise. */
  resolver?: McpResolver;
  idleMs?: number;
}

/** A connected server for one run. */
export interface McpSession {
  client: Client;
  transport: Transport;
  server: string;
  alive: boolean;
  /** The transport's last error (a message too large, a broken pipe). */
  lastError?: Error;
  stderr: string[];
  lastUsed: number;
  /** How often it was started for this run before (restarts after a crash or a timeout). */
  restarts: number;
  /** A call has said that the server was started again. */
  announced?: boolean;
}

/** A server could not be started or reached; the message says why, in words the model can act on. */
export class McpUnavailable extends Error {}

/**
 * The MCP sessions of this worker, by run and server. A stdio server is a process inside the
 * run's sandbox (started by the sandbox's own argv, as its unprivileged user, with the sandbox's
 * environment, never the worker's); an HTTP server is a client of the worker's, through the
 * address guard. A session that crashed or hung is dropped and started afresh by the next call,
 * a few times per run at most.
 */
export class McpSessions {
  private readonly sessions = new Map<string, Promise<McpSession>>();
  private readonly crashes = new Map<string, number>();
  private readonly starts = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly deps: McpSessionDeps) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(deps.idleMs ?? MCP_IDLE_MS, 60_000));
    this.sweeper.unref();
  }

  config(server: string): McpServerConfig | undefined {
    return this.deps.servers[server];
  }

  /** The run's live session with `server`, started (or restarted) when there is none. */
  async open(ref: McpRunRef, server: string): Promise<McpSession> {
    const key = keyOf(ref.runId, server);
    const existing = this.sessions.get(key);
    if (existing) {
      const session = await existing.catch(() => undefined);
      if (session?.alive) {
        session.lastUsed = Date.now();
        return session;
      }
      this.sessions.delete(key);
    }
    if ((this.crashes.get(key) ?? 0) >= MCP_MAX_CRASHES) {
      throw new McpUnavailable(`the MCP server ${server} stopped ${MCP_MAX_CRASHES} times in this run, so it is not started again for it`);
    }
    const starting = this.start(ref, server);
    this.sessions.set(key, starting);
    starting.catch(() => this.sessions.get(key) === starting && this.sessions.delete(key));
    return starting;
  }

  /** Ends a session (a hung call, a crash): the next call starts the server afresh. */
  drop(ref: McpRunRef, session: McpSession, crashed: boolean): void {
    const key = keyOf(ref.runId, session.server);
    if (crashed) this.crashes.set(key, (this.crashes.get(key) ?? 0) + 1);
    session.alive = false;
    void this.sessions.get(key)?.then((current) => current === session && this.sessions.delete(key));
    // Closing a stdio process waits for it to leave (seconds for one that ignores its stdin): not on the call's time.
    void session.client.close().catch(() => undefined);
  }

  /** Ends every session of a run on this worker. */
  async closeRun(runId: string): Promise<number> {
    const closing: Array<Promise<unknown>> = [];
    for (const [key, pending] of this.sessions) {
      if (!key.startsWith(`${runId}\u0000`)) continue;
      this.sessions.delete(key);
      closing.push(pending.then((session) => ((session.alive = false), session.client.close())).catch(() => undefined));
    }
    for (const key of [...this.crashes.keys(), ...this.starts.keys()]) if (key.startsWith(`${runId}\u0000`)) this.forget(key);
    await Promise.all(closing);
    return closing.length;
  }

  /** Ends every session (worker shutdown, tests). */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((pending) => pending.then((session) => session.client.close()).catch(() => undefined)));
  }

  private forget(key: string): void {
    this.crashes.delete(key);
    this.starts.delete(key);
  }

  private sweep(): void {
    const idle = this.deps.idleMs ?? MCP_IDLE_MS;
    for (const [key, pending] of this.sessions) {
      void pending
        .then((session) => {
          if (Date.now() - session.lastUsed < idle) return;
          if (this.sessions.get(key) === pending) this.sessions.delete(key);
          this.forget(key);
          return session.client.close();
        })
        .catch(() => undefined);
    }
  }

  private async start(ref: McpRunRef, server: string): Promise<McpSession> {
    const config = this.deps.servers[server];
    if (!config) throw new McpUnavailable(`no MCP server called ${server} is configured on this worker (mcp.servers)`);
    const key = keyOf(ref.runId, server);
    const restarts = this.starts.get(key) ?? 0;
    this.starts.set(key, restarts + 1);
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const client = new Client({ name: 'switchboard', version: '0.1.0' }, { capabilities: {} });
    const stderr: string[] = [];
    const transport =
      config.transport === 'stdio' ? await this.stdioTransport(ref, server, config, stderr) : await this.httpTransport(server, config);
    const session: McpSession = { client, transport, server, alive: true, stderr, lastUsed: Date.now(), restarts };
    client.onclose = () => (session.alive = false);
    client.onerror = (error) => (session.lastError = error);
    const signal = currentActivityContext()?.cancellationSignal;
    try {
      await client.connect(transport, { timeout: config.startTimeoutMs, ...(signal ? { signal } : {}) });
    } catch (error) {
      session.alive = false;
      void client.close().catch(() => undefined);
      throw new McpUnavailable(`the MCP server ${server} did not start: ${describe(error, session)}`);
    }
    return session;
  }

  private async stdioTransport(
    ref: McpRunRef,
    server: string,
    config: Extract<McpServerConfig, { transport: 'stdio' }>,
    stderr: string[],
  ): Promise<Transport> {
    const host = this.deps.sandboxHost;
    if (!host || !ref.workspace) throw new McpUnavailable(`the MCP server ${server} runs in the run's sandbox, and this run has none here`);
    let prepared;
    try {
      prepared = await host.prepare(ref.workspace, currentActivityContext()?.info.workflowExecution?.workflowId);
    } catch (error) {
      if (error instanceof SandboxUnavailable) throw new McpUnavailable(`the MCP server ${server} runs in the sandbox: ${error.message}`);
      throw error;
    }
    // The server's own traffic leaves through the workspace's door like a command's, under the run's grant.
    prepared.door.grant = {
      network: ref.workspace.network === true,
      allow: egressAllowFor(this.deps.egress ?? { allow: ['*'] }, ref.agent, ref.machine),
      identity: ref.identity ?? 'none',
      ...(ref.repo ? { repo: ref.repo } : {}),
    };
    const cwd = config.cwd ?? prepared.roots.work;
    // A server acting for the run: the workspace is no longer only what the worker's own steps made.
    await markUsed(prepared.layout);
    // The sandbox's own argv runs it as the workspace's unprivileged user; the shell only changes
    // folder and finds the program on the sandbox's PATH.
    const argv = host.argv(prepared, ['exec', '/bin/sh', '-c', 'cd "$1" && shift && exec "$@"', 'sh', cwd, config.command, ...config.args]);
    const env = {
      ...commandEnvironment(prepared.layout, prepared.isolation.mode, {
        port: prepared.door.port,
        gitBaseUrl: this.deps.gitBaseUrl ?? 'https://github.com',
      }),
      // The SDK adds these from the worker's environment unless they are set: they are the sandbox's.
      USER: 'sandbox',
      LOGNAME: 'sandbox',
      SHELL: '/bin/sh',
      ...config.env,
    };
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const transport = new StdioClientTransport({
      command: argv[0],
      args: argv.slice(1),
      env,
      cwd: '/',
      stderr: 'pipe',
      maxBufferSize: MCP_MAX_MESSAGE_BYTES,
    });
    // Hostile bytes: kept as the last few lines, each cut short.
    transport.stderr?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        stderr.push(line.slice(0, 300));
        if (stderr.length > STDERR_LINES) stderr.shift();
      }
    });
    return transport;
  }

  private async httpTransport(server: string, config: Extract<McpServerConfig, { transport: 'http' }>): Promise<Transport> {
    const env = this.deps.env ?? process.env;
    const headers: Record<string, string> = {};
    for (const header of config.headers) {
      const value = env[header.fromEnv];
      if (!value)
        throw new McpUnavailable(`the MCP server ${server} needs ${header.fromEnv} in the worker's environment, and it is not set`);
      headers[header.name] = `${header.prefix ?? ''}${value}`;
    }
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    return new StreamableHTTPClientTransport(new URL(config.url), {
      fetch: guardedFetch({
        network: config.network,
        maxBytes: MCP_MAX_MESSAGE_BYTES,
        ...(this.deps.resolver ? { resolver: this.deps.resolver } : {}),
      }),
      requestInit: { headers },
      reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1_000, maxReconnectionDelay: 1_000, reconnectionDelayGrowFactor: 1 },
    });
  }
}

function keyOf(runId: string, server: string): string {
  return `${runId}\u0000${server}`;
}

/** An error in words, with what the server said on stderr last (bounded, hostile bytes). */
export function describe(error: unknown, session?: Pick<McpSession, 'stderr' | 'lastError'>): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = session?.lastError && !message.includes(session.lastError.message) ? ` (${session.lastError.message})` : '';
  const said = session?.stderr.length ? `; its last words on stderr: ${session.stderr.slice(-3).join(' | ')}` : '';
  return `${message}${cause}${said}`.slice(0, 1_500);
}
