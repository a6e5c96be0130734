import { createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { connect, type Server as NetServer, type Socket } from 'node:net';
import { type Duplex } from 'node:stream';
import { resolveDestination, systemResolver, type DoorGrant, type Resolver } from './door-grant';
import { forwardGit, GIT_DOOR_PREFIX, refuse } from './git-forward';
import { type PushPolicy } from './receive-pack';

export interface DoorLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface DoorOptions {
  /** The workspace's folder name, for logs. */
  workspace: string;
  gitBaseUrl: string;
  identityToken?: (scope: 'read' | 'write') => Promise<string | undefined>;
  logger?: DoorLogger;
  resolver?: Resolver;
  /** The rules pushes are judged by (the deployment's, narrowed per repository). */
  pushPolicy?: PushPolicy;
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'];
const CONNECT_TIMEOUT_MS = 15_000;

/**
 * A workspace's only way out: an HTTP proxy (CONNECT tunnels and plain `http://` requests)
 * that lets through public internet destinations the grant allows, and a git smart-HTTP
 * endpoint that adds the run's token outside the sandbox. It serves connections accepted
 * on a listening socket the worker holds inside the sandbox's network namespace.
 */
export class Door {
  grant: DoorGrant | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly http = createServer({ requestTimeout: 0, headersTimeout: 60_000 });
  private closed = false;

  constructor(
    private readonly listener: NetServer,
    /** The port commands connect to (inside the sandbox, or on the host when unisolated). */
    readonly port: number,
    /** The holder whose namespace the listener lives in; undefined when unisolated. */
    readonly holderPid: number | undefined,
    private readonly options: DoorOptions,
  ) {
    listener.on('connection', (socket: Socket) => {
      if (this.closed) return socket.destroy();
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
      this.http.emit('connection', socket);
    });
    this.http.on('request', (req: IncomingMessage, res: ServerResponse) => void this.onRequest(req, res));
    this.http.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.onConnect(req, socket as Socket, head));
    this.http.on('clientError', (_error, socket) => socket.destroy());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Stops listening and cuts every open connection (and so every tunnel through it). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.grant = undefined;
    this.listener.close();
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  private refused(what: string, reason: string): void {
    this.options.logger?.warn(
      { component: 'sandbox', workspace: this.options.workspace, destination: what, reason },
      'sandbox network request refused',
    );
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const target = req.url ?? '/';
      if (target.startsWith(GIT_DOOR_PREFIX)) {
        await forwardGit(req, res, this.grant, {
          gitBaseUrl: this.options.gitBaseUrl,
          ...(this.options.identityToken ? { identityToken: this.options.identityToken } : {}),
          ...(this.options.pushPolicy ? { pushPolicy: this.options.pushPolicy } : {}),
          onRefusal: ({ repo, reason }) => this.refused(`git ${repo}`, reason),
        });
        return;
      }
      if (!/^http:\/\//i.test(target)) {
        refuse(res, 'this is the sandbox network door: use it as an HTTP(S) proxy, or for git through the configured URL rewrite', 404);
        return;
      }
      await this.forwardHttp(req, res, new URL(target));
    } catch (error) {
      if (!res.headersSent) refuse(res, `the request failed at the door: ${(error as Error).message}`, 502);
      else res.destroy();
    }
  }

  /** A plain `http://` request in proxy form: forwarded to the checked address with the Host the client gave. */
  private async forwardHttp(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(url.port || 80);
    const destination = await resolveDestination(this.grant, host, port, this.options.resolver ?? systemResolver);
    if ('refused' in destination) {
      this.refused(`${host}:${port}`, destination.refused);
      refuse(res, destination.refused);
      return;
    }
    const headers: OutgoingHttpHeaders = { ...req.headers };
    for (const name of HOP_BY_HOP) delete headers[name];
    if (req.headers['transfer-encoding'] && headers['content-length'] === undefined) headers['transfer-encoding'] = 'chunked';
    const upstream = httpRequest({
      host: destination.address,
      port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers,
      setHost: false,
    });
    upstream.on('response', (answer) => {
      const forwarded: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers))
        if (!HOP_BY_HOP.includes(name) && value !== undefined) forwarded[name] = value;
      res.writeHead(answer.statusCode ?? 502, forwarded);
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      if (!res.headersSent) refuse(res, `${host}:${port} could not be reached: ${error.message}`, 502);
      else res.destroy();
    });
    req.pipe(upstream);
  }

  /** A CONNECT tunnel (HTTPS and anything else over TCP) to a checked address. */
  private async onConnect(req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    const { host, port } = parseAuthority(req.url ?? '');
    const destination = await resolveDestination(this.grant, host, port, this.options.resolver ?? systemResolver);
    if ('refused' in destination) {
      this.refused(`${host}:${port}`, destination.refused);
      const body = `Switchboard refused this request: ${destination.refused}\n`;
      client.end(
        `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain; charset=utf-8\r\nx-switchboard-refused: true\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      return;
    }
    const upstream = connect({ host: destination.address, port, timeout: CONNECT_TIMEOUT_MS });
    let established = false;
    upstream.once('connect', () => {
      established = true;
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const fail = (why: string) => {
      if (!established && client.writable) client.end(`HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n${why}\n`);
      else client.destroy();
      upstream.destroy();
    };
    upstream.once('timeout', () => fail(`${host}:${port} did not answer`));
    upstream.once('error', (error) => fail(`${host}:${port} could not be reached: ${error.message}`));
    client.once('close', () => upstream.destroy());
  }
}

/** `host:port` or `[v6]:port` from a CONNECT line. */
export function parseAuthority(authority: string): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(authority);
  if (bracketed) return { host: bracketed[1], port: Number(bracketed[2]) };
  const index = authority.lastIndexOf(':');
  if (index <= 0) return { host: authority, port: NaN };
  return { host: authority.slice(0, index), port: Number(authority.slice(index + 1)) };
}
