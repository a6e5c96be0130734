import { applyEnvFile, loadConfig, type LoadedConfig } from './config';
import { describeError } from './errors';

/**
 * Loads the configuration for a process entry point, after the deployment's env file (its
 * secrets; a variable already set wins). A bad config or env file is printed as one block
 * naming each key (never a stack trace) and the process exits 1; the caller then returns.
 */
export function loadConfigForProcess(): LoadedConfig | undefined {
  try {
    applyEnvFile();
    return loadConfig();
  } catch (error) {
    console.error(describeError(error));
    process.exitCode = 1;
    return undefined;
  }
}
