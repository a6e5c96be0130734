import { type ActivityDeps } from '../activities';
import { modelDepsFromConfig } from '../activities/models/from-config';
import { resolveConfigPath, type LoadedConfig } from './config';
import { type Logger } from './logger';

/**
 * The activities' dependencies from the loaded configuration: the one place where config
 * becomes clients, folders and base URLs. Secrets stay in the environment and are read by
 * each activity when it needs them.
 */
export function activityDepsFromConfig(loaded: LoadedConfig, logger: Logger): ActivityDeps {
  const { config } = loaded;
  const dataDir = resolveConfigPath(loaded, config.dataDir);
  return {
    logger,
    models: modelDepsFromConfig(config.models, { baseDir: loaded.baseDir, logger }),
    sandbox: { dataDir, logger },
    agents: {
      config: config.agents,
      ...(config.agents.customAgentsDir ? { customAgentsDir: resolveConfigPath(loaded, config.agents.customAgentsDir) } : {}),
      logger,
    },
  };
}
