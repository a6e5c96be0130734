import { Connection } from '@temporalio/client';
import { type SearchAttributeType } from '@temporalio/common';
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
  /** How long to wait for the first connection. */
  timeoutMs?: number;
}

/** Opens a client connection, raising `TemporalUnreachableError` when the server does not answer. */
export async function connectTemporal(options: ConnectOptions): Promise<Connection> {
  try {
    return await Connection.connect({ address: options.address, connectTimeout: options.timeoutMs ?? 5_000 });
  } catch (error) {
    throw new TemporalUnreachableError(options.address, error);
  }
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
