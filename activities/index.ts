import { type Logger } from '../infra/logger';
import { createAgentSetupActivities, type AgentSetupDeps } from './agents/agent-setup';
import { createGitHubActivities, type GitHubActivityDeps } from './github';
import { createModelActivities, type ModelActivityDeps } from './models';
import { createSandboxActivities, type SandboxDeps } from './sandbox';
import { createStatusActivities, type StatusActivityDeps } from './slack';
import { createUnitClientActivities, type UnitClientDeps } from './units/unit-client';
import { createUnitWorkspaceActivities } from './units/unit-workspace';

/** What the activities need from the outside world; `infra/activity-deps.ts` builds it from config, tests build their own. */
export interface ActivityDeps {
  logger: Logger;
  models: ModelActivityDeps;
  sandbox: SandboxDeps;
  agents: AgentSetupDeps;
  github: GitHubActivityDeps;
  /** The Temporal client units are started and inspected with. */
  units: UnitClientDeps;
  /** Slack delivery of cards and answers for Slack threads; without it they are logged. */
  slack?: StatusActivityDeps['slack'];
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
    ...createUnitWorkspaceActivities({ dataDir: deps.sandbox.dataDir, identities: deps.github.identities }),
    ...createUnitClientActivities(deps.units),
    ...createStatusActivities({ logger: deps.logger, ...(deps.slack ? { slack: deps.slack } : {}) }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
