import { type Logger } from '../infra/logger';
import { createAgentSetupActivities, type AgentSetupDeps } from './agents/agent-setup';
import { createGitHubActivities, type GitHubActivityDeps } from './github';
import { createModelActivities, type ModelActivityDeps } from './models';
import { createSandboxActivities, type SandboxDeps } from './sandbox';
import { createConsoleStatusActivities } from './status/console-status';

/** What the activities need from the outside world; `infra/activity-deps.ts` builds it from config, tests build their own. */
export interface ActivityDeps {
  logger: Logger;
  models: ModelActivityDeps;
  sandbox: SandboxDeps;
  agents: AgentSetupDeps;
  github: GitHubActivityDeps;
}

/**
 * Builds every activity implementation from its dependencies. The worker registers the
 * result; workflows call them by name through `proxyActivities` with their types only.
 */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createAgentSetupActivities(deps.agents),
    ...createModelActivities(deps.models),
    ...createSandboxActivities(deps.sandbox),
    ...createGitHubActivities(deps.github),
    ...createConsoleStatusActivities({ logger: deps.logger }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
