import { type Client } from '@temporalio/client';
import { type ActivityDeps } from '../activities';
import { createSandboxHost, type SandboxDeps } from '../activities/sandbox';
import { createRepoSettingsReader, githubIdentitiesFromEnvironment } from '../activities/github';
import { createPushPolicy } from '../activities/github/push-policy';
import { modelDepsFromConfig } from '../activities/models/from-config';
import { slackStatusDepsFromConfig } from '../activities/slack/from-config';
import { webDepsFromConfig } from '../activities/web/from-config';
import { readSecret, resolveConfigPath, type LoadedConfig } from './config';
import { type Logger } from './logger';
import { hostTaskQueue } from './host-queue';
import { sessionLinksFromConfig } from './session-links';
import { missingSettings } from './preflight';
import { mcpSetupOf } from './config/mcp-section';

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
  // One settings reader per process: the worker's activities and the webhook door share its per-commit cache.
  const settings = createRepoSettingsReader({
    identities,
    repositories: config.repositories,
    defaultSeverity: config.review.addressSeverity,
  });
  // The sandbox's network door adds the run's own scoped token to git requests for the git host;
  // commands never see it.
  const sandbox: SandboxDeps = {
    dataDir,
    hostTaskQueue: hostTaskQueue(config.temporal.taskQueue, dataDir),
    logger,
    identityToken: (scope) => identities.tokenFor(scope),
    gitBaseUrl: identities.gitUrl,
    isolation: config.sandbox.isolation,
    egress: config.sandbox.egress,
    hiddenPaths: config.sandbox.hiddenPaths,
    limits: config.sandbox.limits,
    uids: config.sandbox.uids,
    repoCache: config.sandbox.repoCache,
    // The door judges every push's ref updates by the deployment's rules, narrowed by the repository's settings.
    pushPolicy: createPushPolicy({ rules: config.github.pushes, settings, identities }),
  };
  // Status cards link to the run's session page, signed on the worker (the server shares the key).
  const links = sessionLinksFromConfig(config);
  const { embedded } = config.temporal;
  const webUiBaseUrl =
    config.temporal.uiUrl ?? (!config.temporal.address && embedded.ui ? `http://${embedded.ip}:${embedded.uiPort}` : undefined);
  return {
    logger,
    webUi: { namespace: config.temporal.namespace, ...(webUiBaseUrl ? { baseUrl: webUiBaseUrl } : {}) },
    ...(slack ? { slack } : {}),
    // A card needs a full address: without http.publicUrl or a fixed port there is none to give.
    ...(links?.baseUrl ? { sessionLink: (workflowId: string) => links.url(workflowId) } : {}),
    models: modelDepsFromConfig(config.models, { baseDir: loaded.baseDir, logger }, config.prices.models, config.prices.cache),
    sandbox,
    sandboxHost: createSandboxHost(sandbox),
    github: {
      identities,
      settings,
    },
    units: {
      client,
      taskQueue: config.temporal.taskQueue,
      preflight: (unit) => missingSettings(loaded, { github: ['read', 'write'], ...(unit.model ? { model: unit.model } : {}) }),
    },
    web: webDepsFromConfig(config.web, (name) => readSecret(name), config.prices.search),
    skillDirs: config.skills.dirs.map((dir) => resolveConfigPath(loaded, dir)),
    spend: config.spend,
    mcp: { servers: config.mcp.servers },
    agents: {
      config: config.agents,
      ...(config.agents.customAgentsDir ? { customAgentsDir: resolveConfigPath(loaded, config.agents.customAgentsDir) } : {}),
      ship: {
        addressSeverity: config.review.addressSeverity,
        ...config.ship,
        planMergeAuthority: config.plan.mergeAuthority,
        branchPrefix: config.github.pushes.branchPrefix,
      },
      ...(config.models.allowed ? { allowedModels: config.models.allowed } : {}),
      admission: config.admission,
      repositories: config.repositories,
      mcp: mcpSetupOf(config.mcp),
      board: config.board,
      logger,
    },
  };
}
