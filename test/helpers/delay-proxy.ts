import { createServer, request } from 'node:http';

export interface DelayProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * A reverse proxy in front of a local server (the local GitHub's API or git) that holds each
 * request for a random 0..maxDelayMs before passing it on: GitHub's latency, so kills land
 * while requests are in flight.
 */
export async function startDelayProxy(target: string, maxDelayMs: number): Promise<DelayProxy> {
  const base = new URL(target);
  const server = createServer((req, res) => {
    setTimeout(
      () => {
        const upstream = request(
          new URL(`${base.pathname.replace(/\/$/, '')}${req.url ?? '/'}`, base),
          { method: req.method, headers: { ...req.headers, host: base.host } },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        req.pipe(upstream);
      },
      Math.floor(Math.random() * maxDelayMs),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
