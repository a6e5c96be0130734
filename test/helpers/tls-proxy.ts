import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';

/** A throwaway certificate authority and a server certificate it signed for 127.0.0.1 and localhost. */
export interface TestCertificates {
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
}

export function makeTestCertificates(dir: string): TestCertificates {
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=switchboard test CA',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
  );
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-keyout', file('server.key'), '-out', file('server.csr'));
  writeFileSync(file('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.pem'),
  );
  return { caFile: file('ca.pem'), serverCertFile: file('server.pem'), serverKeyFile: file('server.key') };
}

export interface TlsProxy {
  /** `127.0.0.1:<port>`: TLS in, the plain dev server out. */
  address: string;
  /** Connections that completed a TLS handshake (and negotiated h2). */
  handshakes(): number;
  stop(): Promise<void>;
}

/**
 * A TLS-terminating TCP proxy in front of a plaintext Temporal: it offers ALPN `h2` (Core's
 * gRPC client refuses a TLS server that does not; Debian 12's stunnel 5.68 cannot) and then
 * passes bytes both ways, so a client that connects here speaks TLS or nothing.
 */
export async function startTlsProxy(certificates: TestCertificates, target: string): Promise<TlsProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  let handshakes = 0;
  const sockets = new Set<Socket>();
  const server = createTlsServer(
    { cert: readFileSync(certificates.serverCertFile), key: readFileSync(certificates.serverKeyFile), ALPNProtocols: ['h2'] },
    (incoming) => {
      handshakes += 1;
      const outgoing = createConnection({ host, port });
      for (const socket of [incoming, outgoing]) {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      incoming.pipe(outgoing).pipe(incoming);
      incoming.once('close', () => outgoing.destroy());
      outgoing.once('close', () => incoming.destroy());
    },
  );
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1', resolve).once('error', reject));
  const { port: listening } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${listening}`,
    handshakes: () => handshakes,
    stop: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
