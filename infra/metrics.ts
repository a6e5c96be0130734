import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { type Registry } from 'prom-client';
import { listenError } from './startup-errors';
import { type Logger } from './logger';

/**
 * One Prometheus endpoint per process (`metrics.port`, GET /metrics): the Temporal runtime's
 * series (worker slots, cache, task latencies, the worker's client requests; exported by Core
 * on a private loopback port) followed by ours (the front ends'). Operators scrape one address.
 */
export interface MetricsEndpoint {
  url: string;
  close(): Promise<void>;
}

/** A loopback address for the Temporal runtime's own exporter, which only we read. */
export async function runtimeExporterAddress(): Promise<string> {
  const probe = createNetServer();
  await new Promise<void>((resolve, reject) => probe.listen(0, '127.0.0.1', resolve).once('error', reject));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `127.0.0.1:${port}`;
}

export async function startMetricsEndpoint(options: {
  host: string;
  port: number;
  /** The runtime exporter's address (`runtimeExporterAddress`), when the runtime exports. */
  runtimeAddress?: string;
  /** Our own series, when this process runs front ends. */
  registry?: Registry;
  logger: Logger;
}): Promise<MetricsEndpoint> {
  const server: Server = createHttpServer((req, res) => {
    if (req.method !== 'GET' || !req.url?.startsWith('/metrics')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics\n');
      return;
    }
    void collect(options).then(
      (text) => res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(text),
      (error: unknown) => {
        options.logger.warn({ err: error }, 'metrics: could not collect');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenError(error, options.host, options.port, 'SWITCHBOARD_METRICS_PORT (metrics.port)')));
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://${options.host}:${port}/metrics`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function collect(options: { runtimeAddress?: string; registry?: Registry }): Promise<string> {
  const parts: string[] = [];
  if (options.runtimeAddress) {
    // Core's exporter answers once the runtime has made its first meter; an error here is a real outage.
    const response = await fetch(`http://${options.runtimeAddress}/metrics`, { signal: AbortSignal.timeout(5_000) });
    parts.push(await response.text());
  }
  if (options.registry) parts.push(await options.registry.metrics());
  return parts.map((part) => (part.endsWith('\n') ? part : `${part}\n`)).join('');
}
