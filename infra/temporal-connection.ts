import { type DataConverter } from '@temporalio/common';
import { readFileSync } from 'node:fs';
import { Client, type Connection, type WorkflowClientInterceptor } from '@temporalio/client';
import { toClientOptions } from '@temporalio/envconfig';
import { type TLSConfig } from '@temporalio/common/lib/internal-non-workflow';
import { type NativeConnection } from '@temporalio/worker';
import { type LoadedConfig } from './config';
import { ConfigError } from './errors';
import { connectTemporal } from './temporal';
import { processTracing } from './tracing';

/**
 * The one place where Switchboard's processes get their Temporal connections and clients:
 * the CLI, the front ends, the worker's own client and the all-in-one process all come through
 * `temporalTarget` + `openTemporalClient`/`createTemporalClient`, and the worker's native
 * connection through `connectWorker` (infra/worker.ts) with the same target. Anything every
 * client must carry (interceptors, a data converter) is added in `createTemporalClient`.
 */
export interface TemporalTarget {
  address: string;
  namespace: string;
  /** TLS settings, `true` for the system's roots, or undefined/false for plaintext. */
  tls?: TLSConfig | boolean;
  apiKey?: string;
  /** gRPC headers (TEMPORAL_GRPC_META_*, the profile's grpc_meta). */
  metadata?: Record<string, string>;
}

/**
 * The connection settings: Temporal's client config profile (TOML file and TEMPORAL_*
 * variables), with our `temporal.*` keys over it. An `address` other than the configured one
 * (the embedded or a reused local dev server) is plaintext, without a key.
 */
export function temporalTarget(loaded: LoadedConfig, address?: string): TemporalTarget {
  const { config, temporalProfile } = loaded;
  const namespace = config.temporal.namespace;
  const configured = config.temporal.address;
  if (!configured || (address && address !== configured)) {
    return { address: address ?? `${config.temporal.embedded.ip}:${config.temporal.embedded.port}`, namespace };
  }
  const { connectionOptions } = toClientOptions({ ...temporalProfile, address: configured });
  const tls = withOurTls(connectionOptions.tls, config.temporal.tls);
  return {
    address: configured,
    namespace,
    ...(tls ? { tls } : {}),
    ...(connectionOptions.apiKey && typeof connectionOptions.apiKey === 'string' ? { apiKey: connectionOptions.apiKey } : {}),
    ...(temporalProfile.grpcMeta && Object.keys(temporalProfile.grpcMeta).length > 0 ? { metadata: temporalProfile.grpcMeta } : {}),
  };
}

type OurTls = LoadedConfig['config']['temporal']['tls'];

/** `temporal.tls` over the profile's TLS: a file named here wins, `enabled: false` turns it off. */
function withOurTls(profile: TLSConfig | boolean | undefined | null, ours: OurTls): TLSConfig | boolean | undefined {
  if (!ours) return profile ?? undefined;
  if (ours.enabled === false) return false;
  const base: TLSConfig = typeof profile === 'object' && profile ? { ...profile } : {};
  if (ours.serverCaFile) base.serverRootCACertificate = readPem(ours.serverCaFile, 'serverCaFile');
  if (ours.serverName) base.serverNameOverride = ours.serverName;
  if (ours.clientCertFile || ours.clientKeyFile) {
    if (!ours.clientCertFile || !ours.clientKeyFile) {
      throw new ConfigError(['temporal.tls: clientCertFile and clientKeyFile go together (mTLS needs both)']);
    }
    base.clientCertPair = { crt: readPem(ours.clientCertFile, 'clientCertFile'), key: readPem(ours.clientKeyFile, 'clientKeyFile') };
  }
  const anything = Object.keys(base).length > 0;
  return anything ? base : ours.enabled === true || profile === true ? true : undefined;
}

function readPem(path: string, key: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError([`temporal.tls.${key}: cannot read ${path} (${code})`]);
  }
}

export interface ClientExtras {
  /** Client interceptors (the front ends' signal-latency metrics). */
  interceptors?: WorkflowClientInterceptor[];
  /** The deployment's payload codec (the claim check, infra/payloads); workers must use the same. */
  dataConverter?: DataConverter;
}

/**
 * Every Temporal client of ours is made here, so what all clients must carry is added once: the
 * OpenTelemetry interceptor when this process traces (infra/tracing.ts), so each start, signal and
 * update carries the caller's span to the workflow.
 */
export function createTemporalClient(connection: Connection | NativeConnection, namespace: string, extras: ClientExtras = {}): Client {
  const interceptors = [...processTracing().clientInterceptors(), ...(extras.interceptors ?? [])];
  return new Client({
    connection,
    namespace,
    ...(interceptors.length ? { interceptors: { workflow: interceptors } } : {}),
    ...(extras.dataConverter ? { dataConverter: extras.dataConverter } : {}),
  });
}

/** Connects (failing in one line that names the address and `fix`) and makes the client. */
export async function openTemporalClient(
  target: TemporalTarget,
  options: { timeoutMs?: number; fix?: string } & ClientExtras = {},
): Promise<{ client: Client; connection: Connection }> {
  const connection = await connectTemporal({ ...target, ...options });
  return { client: createTemporalClient(connection, target.namespace, options), connection };
}
