import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_KEYS } from '../workflows/search-attributes';
import { SwitchboardError } from './errors';
import { type Logger } from './logger';
import { cliTypeName, missingSearchAttributes } from './temporal';

export interface DevServerOptions {
  /** Path of the `temporal` CLI binary. */
  binary: string;
  ip?: string;
  port: number;
  /** Web UI port; omit or set `ui: false` for a headless server. */
  uiPort?: number;
  ui?: boolean;
  /** SQLite file for persistence; omitted means in-memory. */
  dbFile?: string;
  namespace?: string;
  /** Our own readiness budget (the SDK's spawned servers get only 5 s). */
  readyTimeoutMs?: number;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  logger?: Logger;
  /**
   * Server dynamic configuration (`--dynamic-config-value key=value`), e.g. a low
   * `limit.historyCount.suggestContinueAsNew` so the history recorder sees continue-as-new
   * without growing large histories.
   */
  dynamicConfig?: Record<string, string | number | boolean>;
  /** The Web UI's remote codec (`--ui-codec-endpoint`): the browser decodes payloads through it. */
  uiCodecEndpoint?: string;
  /** Its own process group, so a terminal's Ctrl-C reaches only this process, which then stops it in order. */
  detached?: boolean;
}

/**
 * Dynamic configuration every dev server of ours gets (a caller's `dynamicConfig` may override
 * it). Eager activity dispatch hands an activity scheduled by a workflow task back to the
 * worker that completed that task in the same response, skipping a matching round trip: the
 * first `modelTurn` of a run starts one poll sooner. A cluster needs the same key set by its
 * operator (docs/performance.md). Eager workflow start (a thread's run comes back to the worker
 * that started it, in the start's answer) is on by default in the server; set here so a change of
 * that default cannot slow every message unnoticed.
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, boolean | number>> = {
  'system.enableActivityEagerExecution': true,
  'system.enableEagerWorkflowStart': true,
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
};

/** A running `temporal server start-dev` that this process started and will stop. */
export interface DevServer {
  address: string;
  uiUrl?: string;
  pid: number;
  /** Stops the server (SIGTERM, then SIGKILL after a grace period) and waits for it to exit. */
  stop(): Promise<void>;
}

/** The `temporal server start-dev` command line for these options. */
export function devServerArgs(options: DevServerOptions): string[] {
  const ip = options.ip ?? '127.0.0.1';
  const ui = options.ui ?? options.uiPort !== undefined;
  const args = ['server', 'start-dev', '--ip', ip, '--port', String(options.port), '--namespace', options.namespace ?? 'default'];
  args.push('--log-level', options.logLevel ?? 'warn');
  if (ui) {
    args.push('--ui-port', String(options.uiPort ?? options.port + 1000), '--ui-disable-news-fetch');
    if (options.uiCodecEndpoint) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  } else args.push('--headless');
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  for (const key of SEARCH_ATTRIBUTE_KEYS) args.push('--search-attribute', `${key.name}=${cliTypeName(key)}`);
  for (const [key, value] of Object.entries({ ...DEV_SERVER_DYNAMIC_CONFIG, ...options.dynamicConfig }))
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  return args;
}

/**
 * Starts `temporal server start-dev` with our search attributes registered, and waits until
 * the namespace answers and the attributes are visible.
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const ip = options.ip ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  const address = `${ip}:${options.port}`;
  const ui = options.ui ?? options.uiPort !== undefined;
  if (options.dbFile) mkdirSync(dirname(options.dbFile), { recursive: true });
  const args = devServerArgs(options);

  options.logger?.debug({ binary: options.binary, args }, 'starting Temporal dev server');
  const child = spawn(options.binary, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false });
  const output = captureTail(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const spawnFailed = new Promise<Error>((resolve) => child.once('error', resolve));
  const removeExitHook = killOnExit(child);

  const stop = async (): Promise<void> => {
    removeExitHook();
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    // An unref'd grace timer: a prompt exit must not leave the process waiting the full grace.
    const done = await Promise.race([exited.then(() => true), delay(10_000, undefined, { ref: false }).then(() => false)]);
    if (!done) {
      child.kill('SIGKILL');
      await exited;
    }
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  const failure = Promise.race([
    exited.then((code) => `exited with code ${code}`),
    spawnFailed.then((error) => `could not be spawned: ${error.message}`),
  ]);
  const gaveUp = new AbortController();
  const ready = waitUntilReady(address, namespace, deadline, gaveUp.signal);
  const outcome = await Promise.race([ready.then(() => undefined), failure]);
  // A server that exited is not waited for any longer (the wait would keep this process alive).
  if (outcome !== undefined) gaveUp.abort();
  if (
    outcome !== undefined ||
    !(await ready.then(
      () => true,
      () => false,
    ))
  ) {
    await stop();
    const why = outcome ?? `did not become ready within ${options.readyTimeoutMs ?? 60_000} ms`;
    const said = errorLine(output());
    throw new DevServerStartError(`Temporal dev server at ${address} ${why}${said ? `: ${said}` : ''}`, output());
  }
  const uiUrl = ui ? `http://${ip}:${options.uiPort ?? options.port + 1000}` : undefined;
  options.logger?.info({ address, uiUrl, dbFile: options.dbFile }, 'Temporal dev server ready');
  return { address, uiUrl, pid: child.pid ?? -1, stop };
}

/** The dev server did not start; `output` keeps the tail of what it printed (for debug logs). */
export class DevServerStartError extends SwitchboardError {
  constructor(
    message: string,
    readonly output: string,
  ) {
    super('server_start_failed', message);
  }
}

/** The line of the server's output that says what went wrong (`Error: can't set UI port …`). */
function errorLine(output: string): string | undefined {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const said =
    lines.find((line) => /^Error:/.test(line)) ?? lines.find((line) => /level=(error|fatal)|"level":"(error|fatal)"/i.test(line));
  return said?.replace(/^Error:\s*/, '').slice(0, 300);
}

async function waitUntilReady(address: string, namespace: string, deadline: number, gaveUp: AbortSignal): Promise<void> {
  let lastError: unknown;
  while (Date.now() < deadline && !gaveUp.aborted) {
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address, connectTimeout: 1_000 });
      await connection.workflowService.describeNamespace({ namespace });
      if ((await missingSearchAttributes(connection, namespace)).length === 0) return;
    } catch (error) {
      lastError = error;
    } finally {
      await connection?.close().catch(() => undefined);
    }
    await delay(250);
  }
  throw lastError instanceof Error ? lastError : new Error('not ready');
}

function captureTail(child: ChildProcess): () => string {
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => tail;
}

/** A crash of this process must not leave an orphaned server holding the port and the SQLite file. */
function killOnExit(child: ChildProcess): () => void {
  const kill = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', kill);
  return () => process.removeListener('exit', kill);
}
