import { loadClientConfigProfile, type ClientConfigProfile } from '@temporalio/envconfig';
import { ConfigError } from '../errors';

/** Temporal's client configuration as its SDKs and CLI read it: one profile, with TEMPORAL_* variables applied. */
export interface TemporalProfile extends ClientConfigProfile {
  /** The profile name asked for (`temporal.profile`, TEMPORAL_PROFILE), else the file's "default". */
  name: string;
}

/**
 * Reads the profile from TEMPORAL_CONFIG_FILE (else ~/.config/temporalio/temporal.toml; no file
 * is fine) and the TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS* and
 * TEMPORAL_GRPC_META_* variables, exactly as the `temporal` CLI does. A named profile that
 * does not exist, or a file that is not valid, is a configuration error.
 */
export function loadTemporalProfile(env: NodeJS.ProcessEnv, named: unknown): TemporalProfile {
  const profile = typeof named === 'string' && named !== '' ? named : undefined;
  const variables = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  try {
    return { name: profile ?? env.TEMPORAL_PROFILE ?? 'default', ...loadClientConfigProfile({ profile, overrideEnvVars: variables }) };
  } catch (error) {
    const where = env.TEMPORAL_CONFIG_FILE ? `TEMPORAL_CONFIG_FILE=${env.TEMPORAL_CONFIG_FILE}` : 'Temporal client config';
    const message = error instanceof Error ? error.message : String(error);
    throw new ConfigError([`${where}: ${message} (temporal.profile / TEMPORAL_PROFILE names the profile)`]);
  }
}
