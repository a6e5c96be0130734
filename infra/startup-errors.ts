import { DevServerStartError } from './dev-server';
import { SwitchboardError } from './errors';
import { type Logger } from './logger';

/**
 * Logs why the process could not start as one line that names the fix; the stack and any
 * server output follow only at `LOG_LEVEL=debug`.
 */
export function reportStartupFailure(logger: Logger, error: unknown): void {
  const known = error instanceof SwitchboardError;
  const message = error instanceof Error ? error.message : String(error);
  const line = known ? message.trim() : `${message.split('\n')[0]} (LOG_LEVEL=debug shows the details)`;
  // No fields beside the message: in a terminal they would print as further lines.
  logger.error(`Switchboard could not start: ${line}`);
  if (logger.isLevelEnabled('debug')) {
    logger.debug(
      { err: error, ...(known ? { code: error.code } : {}), ...(error instanceof DevServerStartError ? { output: error.output } : {}) },
      'start-up failure in detail',
    );
  }
}

/** The HTTP server could not listen: name the address and the setting that moves it. */
export function listenError(error: Error, host: string, port: number, setting = 'PORT (http.port)'): Error {
  const what = setting.startsWith('PORT') ? 'HTTP port' : 'Metrics port';
  const hostSetting = setting.startsWith('PORT') ? 'SWITCHBOARD_HTTP_HOST (http.host)' : 'SWITCHBOARD_METRICS_HOST (metrics.host)';
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    return new SwitchboardError(
      'port_in_use',
      `${what} ${port} on ${host} is in use by another program (another Switchboard?): stop it, or set ${setting}`,
      { cause: error },
    );
  }
  if (code === 'EACCES') {
    return new SwitchboardError(
      'port_in_use',
      `${what} ${port} on ${host} needs privileges this process lacks: set ${setting} above 1023`,
      {
        cause: error,
      },
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new SwitchboardError(
      'config_invalid',
      `${what.split(' ')[0]} host ${host} is not an address of this machine: correct ${hostSetting}`,
      { cause: error },
    );
  }
  return error;
}
