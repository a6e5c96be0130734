import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { once } from 'node:events';

/**
 * A stand-in for "the internet" on a machine that has none: an HTTP server in a network
 * namespace of its own, on a random public address in 11.0.0.0/8 routed (as a /32, for the
 * test's duration only) from the host over a veth pair. Documentation ranges will not do:
 * the worker's address guard refuses them like any address that is not on the internet. The host side of the pair has no address, so the
 * destination is neither one of the host's addresses nor on one of its subnets, which is
 * exactly what a sandbox's network door must let through. Needs root and iproute2.
 */
export interface FakeInternet {
  address: string;
  port: number;
  /** What the server answers to every request. */
  greeting: string;
  close(): Promise<void>;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

export async function startFakeInternet(): Promise<FakeInternet> {
  const tag = randomBytes(3).toString('hex');
  const namespace = `sbfi-${tag}`;
  const hostEnd = `sbh${tag}`;
  const innerEnd = `sbi${tag}`;
  // Two suites may run at once on a shared machine: each takes its own address.
  const address = `11.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
  const port = 8080;
  const greeting = `hello from the internet ${tag}`;
  ip('netns', 'add', namespace);
  let server: ChildProcess | undefined;
  try {
    ip('link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', innerEnd, 'netns', namespace);
    ip('link', 'set', hostEnd, 'up');
    ip('-n', namespace, 'link', 'set', 'lo', 'up');
    ip('-n', namespace, 'link', 'set', innerEnd, 'up');
    ip('-n', namespace, 'addr', 'add', `${address}/32`, 'dev', innerEnd);
    ip('-n', namespace, 'route', 'add', 'default', 'dev', innerEnd);
    ip('route', 'add', `${address}/32`, 'dev', hostEnd);
    const program = `require('node:http').createServer((q, r) => r.end(process.argv[1] + ' ' + q.method + ' ' + q.url + '\\n')).listen(${port}, '${address}', () => console.log('ready'))`;
    server = spawn('ip', ['netns', 'exec', namespace, process.execPath, '-e', program, greeting], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      server!.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      server!.once('exit', (code) => reject(new Error(`the fake internet server exited (${code})`)));
    });
  } catch (error) {
    server?.kill('SIGKILL');
    ip('netns', 'del', namespace);
    throw error;
  }
  return {
    address,
    port,
    greeting,
    async close() {
      if (server && server.exitCode === null) {
        server.kill('SIGKILL');
        await once(server, 'exit');
      }
      // Deleting the namespace destroys the veth pair, and the host route with it.
      ip('netns', 'del', namespace);
    },
  };
}
