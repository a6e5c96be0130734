import { createConnection } from 'node:net';
import { Connection } from '@temporalio/client';
import { type SearchAttributeType } from '@temporalio/common';
import { type TLSConfig } from '@temporalio/common/lib/internal-non-workflow';
import { type SearchAttributeKey } from '@temporalio/common/lib/search-attributes';
import { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTE_KEYS } from '../workflows/search-attributes';
import { TemporalUnreachableError } from './errors';

/** The CLI's spelling of each search attribute type, as `--search-attribute K=Type` takes it. */
export function cliTypeName(key: SearchAttributeKey<SearchAttributeType>): string {
  const names: Record<string, string> = {
    KEYWORD: 'Keyword',
    INT: 'Int',
    TEXT: 'Text',
    BOOL: 'Bool',
    DOUBLE: 'Double',
    DATETIME: 'Datetime',
    KEYWORD_LIST: 'KeywordList',
  };
  return names[key.type] ?? key.type;
}

export interface ConnectOptions {
  address: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
  metadata?: Record<string, string>;
  /** How long to wait for the first connection. */
  timeoutMs?: number;
  /** What the person should do when it fails (added to the error's one line). */
  fix?: string;
}

/**
 * Opens a client connection, raising `TemporalUnreachableError` when the server does not
 * answer, with the reason in plain words (the SDK only says "deadline"). Nothing listening
 * or an unknown host fails at once instead of after the whole timeout.
 */
export async function connectTemporal(options: ConnectOptions): Promise<Connection> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const fail = (reason: string | undefined, cause?: unknown) =>
    new TemporalUnreachableError(options.address, cause, { ...(reason ? { reason } : {}), ...(options.fix ? { fix: options.fix } : {}) });
  const before = await tcpReachability(options.address);
  if (before === 'refused' || before === 'unknown_host') throw fail(REASONS[before](options.address));
  // `Connection.connect` leaves a failed channel reconnecting (and the process alive): close it.
  const connection = Connection.lazy({
    address: options.address,
    connectTimeout: timeoutMs,
    ...(options.tls ? { tls: options.tls } : {}),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.metadata ? { metadata: options.metadata } : {}),
  });
  try {
    await connection.ensureConnected();
    return connection;
  } catch (error) {
    await connection.close().catch(() => undefined);
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    if (!/deadline/i.test(message)) throw fail(message, error);
    const after = await tcpReachability(options.address);
    throw fail(
      after === 'open'
        ? `the port answers, but not as Temporal, within ${Math.round(timeoutMs / 1000)} s`
        : REASONS[after](options.address),
      error,
    );
  }
}

type Reachability = 'open' | 'refused' | 'unknown_host' | 'silent' | 'unparsed';

const REASONS: Record<Exclude<Reachability, 'open'>, (address: string) => string> = {
  refused: () => 'connection refused: nothing listens there',
  unknown_host: (address) => `the host name ${hostPort(address)?.host ?? address} does not resolve`,
  silent: () => 'no answer',
  unparsed: () => 'no answer',
};

function hostPort(address: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(address);
  return match ? { host: match[1].replace(/^\[|\]$/g, ''), port: Number(match[2] ?? 7233) } : undefined;
}

/** A plain TCP connect: is anything listening at the address? */
async function tcpReachability(address: string): Promise<Reachability> {
  const target = hostPort(address);
  if (!target) return 'unparsed';
  return new Promise((resolve) => {
    const socket = createConnection(target);
    socket.setTimeout(2_000, () => {
      socket.destroy();
      resolve('silent');
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve('open');
    });
    socket.once('error', (failure: NodeJS.ErrnoException) => {
      if (failure.code === 'ECONNREFUSED') resolve('refused');
      else if (failure.code === 'ENOTFOUND' || failure.code === 'EAI_AGAIN') resolve('unknown_host');
      else resolve('silent');
    });
  });
}

/** One cheap round trip: does the server answer for this namespace? */
export async function pingTemporal(connection: Connection, namespace: string, timeoutMs = 2_000): Promise<void> {
  await connection.withDeadline(Date.now() + timeoutMs, () => connection.workflowService.describeNamespace({ namespace }));
}

/** Our search attributes the namespace does not have (empty when all are registered). */
export async function missingSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const present = customAttributes ?? {};
  return SEARCH_ATTRIBUTE_KEYS.filter((key) => !(key.name in present)).map((key) => key.name);
}

/** Registers any of our search attributes the namespace lacks (for a server we did not start). */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const missing = await missingSearchAttributes(connection, namespace);
  if (missing.length === 0) return [];
  const types = temporal.api.enums.v1.IndexedValueType;
  const searchAttributes: Record<string, temporal.api.enums.v1.IndexedValueType> = {};
  for (const key of SEARCH_ATTRIBUTE_KEYS) {
    if (missing.includes(key.name)) {
      searchAttributes[key.name] = key.type === 'INT' ? types.INDEXED_VALUE_TYPE_INT : types.INDEXED_VALUE_TYPE_KEYWORD;
    }
  }
  await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  return missing;
}
