import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Readable, Transform } from 'node:stream';
import { blockedReason } from '../sandbox/network/egress-policy';
import { classifyAddress } from '../web/address-guard';

/** Resolves a name to every address it has (the system resolver unless a test gives one). */
export type McpResolver = (host: string) => Promise<string[]>;

export interface GuardedFetchOptions {
  /** `public`: the sandbox door's policy. `private`: loopback and private networks too, never link-local or metadata. */
  network: 'public' | 'private';
  /** Bytes of one response body read; past it the body fails (the server's answer is too large). */
  maxBytes: number;
  resolver?: McpResolver;
}

const systemResolver: McpResolver = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** Classes an operator's `private` server may still never be: nothing legitimate serves MCP there. */
const NEVER = new Set(['metadata', 'link-local', 'unspecified', 'multicast', 'reserved']);

/** Why the worker must not connect to `address` for this server, or undefined. */
export function refusalFor(address: string, network: GuardedFetchOptions['network']): string | undefined {
  if (network === 'public') return blockedReason(address);
  const kind = classifyAddress(address);
  return NEVER.has(kind) ? `${address} is a ${kind} address` : undefined;
}

/** Thrown when the address guard refuses a request (the MCP client reports it as the transport's error). */
export class McpAddressRefused extends Error {}

/** Thrown into a response body that grew past its bound. */
export class McpAnswerTooLarge extends Error {}

/**
 * The `fetch` an HTTP MCP client uses: the same egress policy as the sandbox's door. The name is
 * resolved here, every address checked (public addresses only, not this host's, after resolution),
 * and the socket connects to a checked one (the request's `lookup`), so a name that answers
 * differently a moment later cannot slip through. Redirects are not followed here (the MCP
 * client follows a same-origin one through this fetch again, checked again). A body past
 * `maxBytes` fails instead of filling the worker's memory.
 */
export function guardedFetch(options: GuardedFetchOptions): (url: string | URL, init?: RequestInit) => Promise<Response> {
  const resolver = options.resolver ?? systemResolver;
  return async (target, init = {}) => {
    const url = new URL(String(target));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new McpAddressRefused(`${url.protocol} is not http or https`);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [host] : await resolver(host);
    const allowed = addresses.filter((address) => refusalFor(address, options.network) === undefined);
    const first = allowed[0];
    if (!first) {
      const why = addresses[0] ? refusalFor(addresses[0], options.network) : 'it has no address';
      throw new McpAddressRefused(`refused to connect to ${host}: ${why}`);
    }
    const lookup: LookupFunction = (_name, lookupOptions, callback) => {
      const family = isIP(first);
      if ((lookupOptions as { all?: boolean }).all) {
        (callback as unknown as (error: null, all: Array<{ address: string; family: number }>) => void)(
          null,
          allowed.map((address) => ({ address, family: isIP(address) })),
        );
      } else callback(null, first, family);
    };
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => (headers[key] = value));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = send(
        url,
        { method: init.method ?? 'GET', headers, agent: false, lookup, ...(init.signal ? { signal: init.signal } : {}) },
        resolve,
      );
      request.on('error', reject);
      if (typeof init.body === 'string') request.end(init.body);
      else request.end();
    });
    return toResponse(response, init.method ?? 'GET', options.maxBytes);
  };
}

function toResponse(response: IncomingMessage, method: string, maxBytes: number): Response {
  const status = response.statusCode ?? 502;
  const headers = new Headers();
  for (const [key, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(key, item);
  }
  if (method === 'HEAD' || status === 204 || status === 205 || status === 304) {
    response.resume();
    return new Response(null, { status, headers });
  }
  let size = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) return done(new McpAnswerTooLarge(`the server's answer was over ${maxBytes} bytes`));
      done(null, chunk);
    },
  });
  response.on('error', (error) => capped.destroy(error));
  capped.on('error', () => response.destroy());
  response.pipe(capped);
  return new Response(Readable.toWeb(capped), {
    status,
    statusText: response.statusMessage ?? '',
    headers,
  });
}
