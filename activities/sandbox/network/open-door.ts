import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';

/** The port of the door inside every sandbox (each has its own loopback, so one number fits all). */
export const DOOR_PORT = 3128;

/**
 * Runs in the sandbox's network namespace only (the host's filesystem, pid namespace and
 * privileges are untouched by nsenter --net): opens the listening socket there, hands it
 * to the worker over the IPC channel and exits. Nothing of the sandbox can reach it in
 * between: no command runs in a workspace before its door is open.
 */
const LISTEN_AND_HAND_OVER = `
const server = require('node:net').createServer();
server.once('error', (error) => { process.stderr.write(String(error.code || error.message)); process.exit(3); });
server.listen(Number(process.argv[1]), '127.0.0.1', () => process.send('door', server, () => process.exit(0)));
`;

/**
 * A listening socket on 127.0.0.1:DOOR_PORT inside the network namespace of the holder,
 * owned by this process: connections are accepted by the worker's event loop directly,
 * with no forwarder process in between. The socket keeps the namespace alive until it
 * is closed.
 */
export function listenInNamespace(holderPid: number, port = DOOR_PORT, timeoutMs = 10_000): Promise<Server> {
  return new Promise((resolve, reject) => {
    const helper = spawn(
      'nsenter',
      ['--target', String(holderPid), '--net', '--', process.execPath, '-e', LISTEN_AND_HAND_OVER, String(port)],
      {
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
      },
    );
    let stderr = '';
    let settled = false;
    const finish = (error?: Error, server?: Server) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        helper.kill('SIGKILL');
        reject(error);
      } else resolve(server!);
    };
    const timer = setTimeout(() => finish(new Error(`the sandbox network door did not open within ${timeoutMs} ms`)), timeoutMs);
    helper.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    helper.on('message', (_message, handle) => {
      if (handle && typeof (handle as Server).address === 'function') finish(undefined, handle as Server);
    });
    helper.once('error', (error) => finish(error));
    helper.once('exit', (code) => {
      if (code !== 0)
        finish(
          Object.assign(new Error(`the sandbox network door could not open (${stderr.trim() || `exit ${code}`})`), { code: stderr.trim() }),
        );
    });
  });
}

/** Unisolated mode: the door on the host's loopback, on a port the system picks. */
export function listenOnHost(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}
