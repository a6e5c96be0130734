import { createServer } from 'node:net';

/** `preferred` when it is free on loopback, else a port the OS picks (so a busy 3000 never stops the demo). */
export async function portFor(preferred?: number): Promise<number> {
  if (preferred !== undefined) {
    const port = await listenOn(preferred).catch(() => undefined);
    if (port !== undefined) return port;
  }
  return listenOn(0);
}

function listenOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const chosen = typeof address === 'object' && address ? address.port : port;
      server.close(() => resolve(chosen));
    });
  });
}
