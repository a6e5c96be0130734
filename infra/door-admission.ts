import { createAgentSetupActivities, type AgentSetup, type AgentSetupDeps } from '../activities/agents/agent-setup';
import { createActorGate, type ActorGate } from '../activities/github/actor-gate';
import { githubIdentitiesFromEnvironment, type GitHubIdentities } from '../activities/github';
import { type SandboxReadiness } from '../activities/sandbox/isolation';
import { readSecret, resolveConfigPath, type LoadedConfig } from './config';
import { type Logger } from './logger';

/**
 * What the server's doors admit by: the same agent setup the workflows decide with (catalog,
 * config, allowed models, the `admission` section and, when this process runs the worker, the
 * sandbox's readiness), and the GitHub actor gate. One per process, shared by every door.
 */
export interface DoorAdmission {
  facts(): Promise<AgentSetup>;
  gate: ActorGate;
}

export interface DoorAdmissionOptions {
  agents: AgentSetupDeps;
  identities: GitHubIdentities;
  /** `admission.github.cacheSeconds`. */
  cacheSeconds: number;
  /**
   * The worker's sandbox readiness when this process runs the worker. Absent (a server-only
   * process, whose host is not where commands run): the doors do not refuse on it, and a unit
   * that starts on a worker that cannot isolate refuses itself (workflows/unit/unit-setup.ts).
   */
  sandbox?: () => Promise<SandboxReadiness>;
  logger?: Logger;
}

export function createDoorAdmission(options: DoorAdmissionOptions): DoorAdmission {
  const setup = createAgentSetupActivities({
    ...options.agents,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.sandbox ? { sandboxReadiness: options.sandbox } : {}),
  });
  return {
    facts: () => setup.loadAgentSetup(),
    gate: createActorGate(options.identities, {
      cacheMs: options.cacheSeconds * 1_000,
      ...(options.logger ? { logger: options.logger } : {}),
    }),
  };
}

/** The doors' admission from the loaded config alone (GitHub credentials from the environment); no sandbox readiness. */
export function doorAdmissionFromConfig(loaded: LoadedConfig, logger?: Logger): DoorAdmission {
  const { config } = loaded;
  return createDoorAdmission({
    agents: {
      config: config.agents,
      ...(config.agents.customAgentsDir ? { customAgentsDir: resolveConfigPath(loaded, config.agents.customAgentsDir) } : {}),
      ...(config.models.allowed ? { allowedModels: config.models.allowed } : {}),
      admission: config.admission,
      repositories: config.repositories,
    },
    identities: githubIdentitiesFromEnvironment(config.github, (name) => readSecret(name)),
    cacheSeconds: config.admission.github.cacheSeconds,
    ...(logger ? { logger } : {}),
  });
}
