import { type Client } from '@temporalio/client';
import { type ActivityDeps } from '../activities';
import { githubIdentitiesFromEnvironment } from '../activities/github';
import { modelDepsFromConfig } from '../activities/models/from-config';
import { slackStatusDepsFromConfig } from '../activities/slack/from-config';
import { webDepsFromConfig } from '../activities/web/from-config';
import { readSecret, resolveConfigPath, type LoadedConfig } from './config';
import { type Logger } from './logger';

/**
 * The activities' dependencies from the loaded configuration: the one place where config
 * becomes clients, folders and base URLs. Secrets stay in the environment and are read by
 * each activity when it needs them.
 */
export function activityDepsFromConfig(loaded: LoadedConfig, logger: Logger, client: Client): ActivityDeps {
  const { config } = loaded;
  const dataDir = resolveConfigPath(loaded, config.dataDir);
  const identities = githubIdentitiesFromEnvironment(config.github, (name) => readSecret(name));
  const slack = slackStatusDepsFromConfig(config, readSecret('slackBotToken'));
  return {
    logger,
    ...(slack ? { slack } : {}),
    models: modelDepsFromConfig(config.models, { baseDir: loaded.baseDir, logger }),
    // The sandbox's git credential helper gets the run's own scoped token, for the git host only.
    sandbox: { dataDir, logger, identityToken: (scope) => identities.tokenFor(scope), gitBaseUrl: identities.gitUrl },
    github: { identities },
    units: { client, taskQueue: config.temporal.taskQueue },
    web: webDepsFromConfig(config.web, (name) => readSecret(name)),
    skillDirs: config.skills.dirs.map((dir) => resolveConfigPath(loaded, dir)),
    agents: {
      config: config.agents,
      ...(config.agents.customAgentsDir ? { customAgentsDir: resolveConfigPath(loaded, config.agents.customAgentsDir) } : {}),
      ship: {
        addressSeverity: config.review.addressSeverity,
        ...config.ship,
        planMergeAuthority: config.plan.mergeAuthority,
      },
      ...(config.models.allowed ? { allowedModels: config.models.allowed } : {}),
      logger,
    },
  };
}
