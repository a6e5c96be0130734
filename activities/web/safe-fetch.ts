import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { type Readable } from 'node:stream';
import { classifyAddress, isPublicAddress } from './address-guard';

export interface FetchLimits {
  /** The whole fetch, every redirect and the body included. */
  timeoutMs: number;
  /** Bytes of body kept (after decompression); the rest is not read. */
  maxBytes: number;
  maxRedirects: number;
}

export interface SafeFetchOptions extends FetchLimits {
  /**
   * `host` or `host:port` entries that may be reached even when they resolve to a
   * non-public address (a local test server, an intranet wiki). Empty by default.
   */
  allowHosts: readonly string[];
  userAgent: string;
  /** Name resolution (every address of a name); the system resolver by default. */
  resolve?: (hostname: string) => Promise<Array<{ address: string; family: number }>>;
}

export type FetchFailureCode = 'invalid_url' | 'blocked_address' | 'too_many_redirects' | 'timeout' | 'network_error';

export type FetchedPage =
  | { ok: true; url: string; status: number; contentType: string; body: Buffer; truncated: boolean; redirects: string[] }
  | { ok: false; url: string; code: FetchFailureCode; error: string; redirects: string[] };

class Refused extends Error {
  constructor(
    readonly code: FetchFailureCode,
    message: string,
  ) {
    super(message);
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GET with an SSRF guard. Each hop's name is resolved once, by us; every address is checked
 * and the socket connects to the checked one (the `lookup` handed to the request), so a name
 * that answers differently a moment later (DNS rebinding) cannot slip through. Redirects are
 * followed by hand and checked the same way. Failures are values, never throws.
 */
export async function safeFetch(target: string, options: SafeFetchOptions): Promise<FetchedPage> {
  const redirects: string[] = [];
  const signal = AbortSignal.timeout(options.timeoutMs);
  let url = target;
  try {
    for (;;) {
      const parsed = parseTarget(url);
      const response = await get(parsed, options, signal);
      const location = response.headers.location;
      if (REDIRECTS.has(response.statusCode ?? 0) && location) {
        response.destroy();
        if (redirects.length >= options.maxRedirects) {
          throw new Refused('too_many_redirects', `more than ${options.maxRedirects} redirects (last to ${location})`);
        }
        url = new URL(location, parsed).toString();
        redirects.push(url);
        continue;
      }
      const { body, truncated } = await readCapped(response, options.maxBytes, signal);
      return {
        ok: true,
        url,
        status: response.statusCode ?? 0,
        contentType: String(response.headers['content-type'] ?? ''),
        body,
        truncated,
        redirects,
      };
    }
  } catch (error) {
    if (error instanceof Refused) return { ok: false, url, code: error.code, error: error.message, redirects };
    if (signal.aborted) return { ok: false, url, code: 'timeout', error: `no complete answer within ${options.timeoutMs} ms`, redirects };
    return { ok: false, url, code: 'network_error', error: (error as Error).message ?? String(error), redirects };
  }
}

function parseTarget(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Refused('invalid_url', `${url} is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Refused('invalid_url', `only http and https URLs can be fetched (got ${parsed.protocol})`);
  }
  if (parsed.username || parsed.password) throw new Refused('invalid_url', 'URLs with credentials in them are not fetched');
  return parsed;
}

/** True when the URL's host (or host:port) is on the allowlist. */
export function allowlisted(url: URL, allowHosts: readonly string[]): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allowHosts.some((entry) => {
    const wanted = entry.trim().toLowerCase();
    return wanted === host || wanted === `${host}:${port}` || wanted === `[${host}]:${port}`;
  });
}

function refusal(host: string, address: string): Refused {
  return new Refused('blocked_address', `${host} resolves to ${address} (${classifyAddress(address)}); only public addresses are fetched`);
}

async function get(url: URL, options: SafeFetchOptions, signal: AbortSignal): Promise<IncomingMessage> {
  const allowed = allowlisted(url, options.allowHosts);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !allowed && !isPublicAddress(host)) throw refusal(host, host);
  // Resolved here, before the request, so the refusal is ours and the socket reuses the answer.
  let checked: Array<{ address: string; family: number }> | undefined;
  if (!isIP(host)) {
    const resolve = options.resolve ?? ((name: string) => dnsLookup(name, { all: true, verbatim: true }));
    const addresses = await resolve(host);
    // Every usable address is handed over (all checked), so the socket can still try IPv4 and IPv6 in turn.
    checked = allowed ? addresses : addresses.filter((entry) => isPublicAddress(entry.address));
    if (checked.length === 0) {
      throw addresses[0] ? refusal(host, addresses[0].address) : new Refused('network_error', `${host} has no address`);
    }
  }
  const pinned = checked;
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    const first = pinned?.[0];
    if (!pinned || !first) return callback(new Error('no checked address'), '', 0);
    if ((lookupOptions as { all?: boolean }).all) {
      (callback as unknown as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, pinned);
    } else callback(null, first.address, first.family);
  };
  const requestOptions: RequestOptions = {
    method: 'GET',
    agent: false,
    signal,
    headers: {
      'user-agent': options.userAgent,
      accept: 'text/html,application/xhtml+xml,text/plain,application/json,application/pdf;q=0.9,*/*;q=0.5',
      'accept-encoding': 'gzip, deflate, br',
    },
    ...(pinned ? { lookup } : {}),
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, requestOptions, resolve);
    request.on('error', reject);
    request.end();
  });
}

async function readCapped(response: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<{ body: Buffer; truncated: boolean }> {
  const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  const stream: Readable = decoder ? response.pipe(decoder) : response;
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of stream) {
      if (signal.aborted) throw signal.reason;
      const buffer = chunk as Buffer;
      if (size + buffer.length > maxBytes) {
        chunks.push(buffer.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(buffer);
      size += buffer.length;
    }
  } finally {
    response.destroy();
    decoder?.destroy();
  }
  return { body: Buffer.concat(chunks), truncated };
}
