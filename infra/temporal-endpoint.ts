import { Connection } from '@temporalio/client';
import { type SwitchboardConfig } from './config';
import { resolveConfigPath } from './config';
import { startDevServer, type DevServer } from './dev-server';
import { type Logger } from './logger';
import { registerSearchAttributes } from './temporal';
import { resolveTemporalBinary } from './temporal-binaries';

export interface TemporalEndpoint {
  address: string;
  uiUrl?: string;
  /** How the endpoint was obtained. */
  mode: 'configured' | 'reused' | 'embedded';
  /** Stops the server when this process started it; otherwise does nothing. */
  stop(): Promise<void>;
}

/**
 * Finds the Temporal to use: the configured `temporal.address`, else a server already
 * answering on the embedded port, else a dev server we start with a SQLite file under
 * the data dir (so units survive a restart). Our search attributes are registered in
 * every case.
 */
export async function ensureTemporal(config: SwitchboardConfig, baseDir: string, logger: Logger): Promise<TemporalEndpoint> {
  const { namespace, embedded } = config.temporal;
  if (config.temporal.address) {
    await ensureAttributes(config.temporal.address, namespace, logger);
    return { address: config.temporal.address, uiUrl: config.temporal.uiUrl, mode: 'configured', stop: async () => undefined };
  }
  const localAddress = `${embedded.ip}:${embedded.port}`;
  if (await answers(localAddress)) {
    logger.info({ address: localAddress }, 'reusing the Temporal server already running on the embedded port');
    await ensureAttributes(localAddress, namespace, logger);
    const uiUrl = config.temporal.uiUrl ?? `http://${embedded.ip}:${embedded.uiPort}`;
    return { address: localAddress, uiUrl, mode: 'reused', stop: async () => undefined };
  }
  const binary = resolveTemporalBinary('cli');
  const dataDir = resolveConfigPath({ baseDir }, config.dataDir);
  const server: DevServer = await startDevServer({
    binary: binary.path,
    ip: embedded.ip,
    port: embedded.port,
    ui: embedded.ui,
    uiPort: embedded.uiPort,
    dbFile: resolveConfigPath({ baseDir: dataDir }, embedded.dbFile),
    namespace,
    readyTimeoutMs: embedded.readyTimeoutMs,
    logLevel: embedded.logLevel,
    logger,
  });
  return { address: server.address, uiUrl: config.temporal.uiUrl ?? server.uiUrl, mode: 'embedded', stop: () => server.stop() };
}

async function answers(address: string): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 1_000 });
    await connection.close();
    return true;
  } catch {
    return false;
  }
}

async function ensureAttributes(address: string, namespace: string, logger: Logger): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: 10_000 });
  try {
    const added = await registerSearchAttributes(connection, namespace);
    if (added.length > 0) logger.info({ added }, 'registered Switchboard search attributes');
  } catch (error) {
    logger.warn({ err: error }, 'could not register search attributes; `switchboard doctor` shows which are missing');
  } finally {
    await connection.close();
  }
}
