import { type Client } from '@temporalio/client';
import { loadConfig, type LoadedConfig } from '../infra/config';
import { openTemporalClient, temporalTarget } from '../infra/temporal-connection';
import { dataConverterFromConfig } from '../infra/payloads';

export interface CliClient {
  client: Client;
  loaded: LoadedConfig;
  taskQueue: string;
  close(): Promise<void>;
}

/** A Temporal client for operator commands, on the configured or embedded address. */
export async function openCliClient(): Promise<CliClient> {
  const loaded = loadConfig();
  const { temporal } = loaded.config;
  const fix = temporal.address
    ? 'start Temporal there or correct TEMPORAL_ADDRESS (temporal.address)'
    : 'start Switchboard (`npm start`) or set TEMPORAL_ADDRESS';
  const { client, connection } = await openTemporalClient(temporalTarget(loaded), {
    timeoutMs: 5_000,
    fix,
    dataConverter: dataConverterFromConfig(loaded.config),
  });
  return {
    client,
    loaded,
    taskQueue: temporal.taskQueue,
    close: () => connection.close(),
  };
}

/** Runs an action with a client and always closes it; errors become one line and exit code 1. */
export async function withCliClient(action: (cli: CliClient) => Promise<void>): Promise<void> {
  let cli: CliClient | undefined;
  try {
    cli = await openCliClient();
    await action(cli);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  } finally {
    await cli?.close();
  }
}
