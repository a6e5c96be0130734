import { type SwitchboardConfig } from './config';

/** Where the HTTP server serves the remote-codec protocol (server/codec/). */
export const CODEC_PATH = '/codec';

/**
 * The URL a browser or the `temporal` CLI on this host reaches the endpoint at:
 * `http.publicUrl` + `/codec`, else the HTTP listener (a wildcard host read as 127.0.0.1).
 * Undefined when the endpoint is off or the port is chosen at start (0).
 */
export function codecEndpointUrl(config: Pick<SwitchboardConfig, 'codec' | 'http'>): string | undefined {
  if (!config.codec.enabled) return undefined;
  if (config.http.publicUrl) return `${config.http.publicUrl.replace(/\/+$/, '')}${CODEC_PATH}`;
  if (config.http.port === 0) return undefined;
  const host = ['0.0.0.0', '::', ''].includes(config.http.host) ? '127.0.0.1' : config.http.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.http.port}${CODEC_PATH}`;
}
