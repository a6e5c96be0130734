import { resolveConfigPath, type LoadedConfig, type SwitchboardConfig } from './config';
import { codecEndpointUrl } from './codec-endpoint';
import { DevServerStartError, startDevServer, type DevServer } from './dev-server';
import { SwitchboardError, TemporalUnreachableError } from './errors';
import { type Logger } from './logger';
import { connectTemporal, registerSearchAttributes } from './temporal';
import { temporalTarget, type TemporalTarget } from './temporal-connection';
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
export async function ensureTemporal(
  loaded: LoadedConfig,
  logger: Logger,
  options: { start?: boolean; registerAttributes?: boolean } = {},
): Promise<TemporalEndpoint> {
  const { config, baseDir } = loaded;
  const { embedded } = config.temporal;
  const register = options.registerAttributes ?? true;
  if (config.temporal.address) {
    const target = temporalTarget(loaded);
    if (register) await ensureAttributes(target, logger, CONFIGURED_FIX);
    return { address: config.temporal.address, uiUrl: config.temporal.uiUrl, mode: 'configured', stop: async () => undefined };
  }
  const localAddress = `${embedded.ip}:${embedded.port}`;
  if (await answers(localAddress)) {
    logger.info({ address: localAddress }, 'reusing the Temporal server already running on the embedded port');
    if (register) await ensureAttributes(temporalTarget(loaded, localAddress), logger);
    const uiUrl = config.temporal.uiUrl ?? `http://${embedded.ip}:${embedded.uiPort}`;
    if (config.codec.enabled) {
      logger.info(
        'the Temporal server already running was started elsewhere: its Web UI decodes payloads only if it was given --ui-codec-endpoint',
      );
    }
    return { address: localAddress, uiUrl, mode: 'reused', stop: async () => undefined };
  }
  if (options.start === false) {
    throw new TemporalUnreachableError(localAddress, undefined, {
      reason: 'connection refused: nothing listens there',
      fix: 'a worker or server process only connects: set TEMPORAL_ADDRESS (temporal.address, or a Temporal config profile), or start `npm start` first',
    });
  }
  const namespace = config.temporal.namespace;
  const binary = resolveTemporalBinary('cli');
  const dataDir = resolveConfigPath({ baseDir }, config.dataDir);
  // The bundled Web UI decodes claim-checked payloads through our endpoint when it is on.
  const uiCodecEndpoint = embedded.ui ? codecEndpointUrl(config) : undefined;
  if (config.codec.enabled && embedded.ui && !uiCodecEndpoint) {
    logger.warn('the embedded Web UI is not pointed at the codec endpoint: http.port is 0 and http.publicUrl is unset');
  }
  const server: DevServer = await startDevServer({
    ...(uiCodecEndpoint ? { uiCodecEndpoint } : {}),
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
    // Its own process group: a terminal's Ctrl-C reaches this process alone, which stops Temporal
    // last, after the worker has drained (a worker finishing an activity must still reach it).
    detached: true,
  }).catch((error: unknown) => {
    throw portInUse(error, embedded) ?? error;
  });
  return { address: server.address, uiUrl: config.temporal.uiUrl ?? server.uiUrl, mode: 'embedded', stop: () => server.stop() };
}

/** A dev server that could not bind its port says so; this names the setting that moves it. */
function portInUse(error: unknown, embedded: SwitchboardConfig['temporal']['embedded']): SwitchboardError | undefined {
  if (!(error instanceof DevServerStartError) || !/address already in use/.test(error.message)) return undefined;
  const port = Number(/listen tcp \S*:(\d+)/.exec(error.message)?.[1] ?? embedded.port);
  const setting =
    port === embedded.uiPort
      ? 'set SWITCHBOARD_TEMPORAL_UI_PORT (temporal.embedded.uiPort)'
      : port === embedded.port
        ? 'set SWITCHBOARD_TEMPORAL_PORT (temporal.embedded.port)'
        : 'choose other ports with SWITCHBOARD_TEMPORAL_PORT and SWITCHBOARD_TEMPORAL_UI_PORT';
  return new SwitchboardError(
    'port_in_use',
    `The embedded Temporal cannot listen on ${embedded.ip}:${port}: another program uses that port. Stop it, or ${setting}`,
    { cause: error },
  );
}

async function answers(address: string): Promise<boolean> {
  try {
    // Refused at once when nothing listens, the usual case on a first start.
    const connection = await connectTemporal({ address, timeoutMs: 1_000 });
    await connection.close();
    return true;
  } catch {
    return false;
  }
}

/** What to do when the configured Temporal does not answer. */
const CONFIGURED_FIX = 'start Temporal there or correct TEMPORAL_ADDRESS (temporal.address); unset it to run the embedded server';

async function ensureAttributes(target: TemporalTarget, logger: Logger, fix?: string): Promise<void> {
  const connection = await connectTemporal({ ...target, timeoutMs: 10_000, ...(fix ? { fix } : {}) });
  try {
    const added = await registerSearchAttributes(connection, target.namespace);
    if (added.length > 0) logger.info({ added }, 'registered Switchboard search attributes');
  } catch (error) {
    logger.warn({ err: error }, 'could not register search attributes; `switchboard doctor` shows which are missing');
  } finally {
    await connection.close();
  }
}
