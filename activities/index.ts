import { type Logger } from '../infra/logger';
import { type ToolBackends } from '../tools/availability';
import { createAgentSetupActivities, type AgentSetupDeps } from './agents/agent-setup';
import { createAttachActivities } from './attach';
import { createBoardActivities } from './board';
import { createGitHubActivities, type GitHubActivityDeps } from './github';
import { createModelActivities, type ModelActivityDeps } from './models';
import { createSandboxActivities, createSandboxHost, type SandboxDeps, type SandboxHost } from './sandbox';
import { WorkspaceGit } from './sandbox/workspace-git';
import { repoCacheOf } from './sandbox/repo-cache/repo-cache';
import { createSkillActivities } from './skills';
import { createStatusActivities, type SlackWebClient, type StatusActivityDeps } from './slack';
import { createUncertainClientActivities } from './units/uncertain-client';
import { createRunProgressActivities } from './runs/run-progress';
import { createRunStartActivities, type RunStartDeps } from './runs/run-start';
import { createUnitClientActivities, type UnitClientDeps } from './units/unit-client';
import { createUnitWorkspaceActivities } from './units/unit-workspace';
import { createResidentQueueActivities } from './units/resident-queue';
import { createWebActivities, type WebActivityDeps } from './web';
import { createSpendActivities, reserveThroughLedger } from './spend';
import { createPlanActivities } from './plans';
import { hasCaps, type SpendConfig } from '../infra/config/spend-section';
import { heartbeating } from './heartbeating';
import { createInstructionsActivities } from './repo/instructions';
import { createMcpActivities, type McpSessionDeps } from './mcp';

/** What the activities need from the outside world; `infra/activity-deps.ts` builds it from config, tests build their own. */
export interface ActivityDeps {
  logger: Logger;
  models: ModelActivityDeps;
  sandbox: SandboxDeps;
  /** The sandbox host built from `sandbox`, when the caller also needs its readiness (health); built here otherwise. */
  sandboxHost?: SandboxHost;
  agents: AgentSetupDeps;
  github: GitHubActivityDeps;
  /** The Temporal client units are started and inspected with. */
  units: UnitClientDeps;
  /**
   * How threads start their runs: a client on the worker's own NativeConnection with `eager`, so
   * the run's first task comes back to this worker in the start's answer (infra/main.ts builds it).
   * Absent: through `units.client`, without eager start.
   */
  runStarts?: RunStartDeps;
  /** Where status cards link to the run (the Temporal Web UI) and the namespace in those links. */
  webUi?: { namespace: string; baseUrl?: string };
  /** Slack delivery of cards and answers for Slack threads; without it they are logged. */
  slack?: StatusActivityDeps['slack'];
  /** Signed links to the runs' session pages, put on their status cards (none when links are off). */
  sessionLink?: (workflowId: string) => string | undefined;
  /** web_fetch and web_search; without it both are off. */
  web?: WebActivityDeps & { searchOff?: string };
  /** Configured skill folders (absolute paths), beside each checkout's .switchboard/skills/. */
  skillDirs?: readonly string[];
  /** The `spend` section: spend caps per person, channel, repository and agent (none: nothing is capped). */
  spend?: SpendConfig;
  /** The MCP servers (the `mcp` section's `servers`) and, for tests, a resolver and an environment for HTTP servers. */
  mcp?: Pick<McpSessionDeps, 'servers' | 'resolver' | 'env'>;
}

/**
 * Which tool backends these deps provide: what the run's tool list is filtered by, so a tool
 * is offered only when the activity behind it can do its work.
 */
export function backendsOf(deps: ActivityDeps): ToolBackends {
  const search = deps.web?.search;
  return {
    webSearch: search
      ? { on: true, provider: search.name }
      : { on: false, why: deps.web?.searchOff ?? 'no search provider is configured (web.search.provider)' },
    webFetch: Boolean(deps.web?.fetch),
    skillFolders: (deps.skillDirs?.length ?? 0) > 0,
    github: deps.github.identities.configured,
    slack: Boolean(deps.slack),
  };
}

/**
 * Builds every activity implementation from its dependencies. The worker registers the
 * result; workflows call them by name through `proxyActivities` with their types only.
 */
export function createActivities(deps: ActivityDeps) {
  const sandboxHost = deps.sandboxHost ?? createSandboxHost(deps.sandbox);
  const sandbox = createSandboxActivities(deps.sandbox, sandboxHost);
  // A unit's and a direct run's git runs in the workspace's sandbox, never on the host.
  const workspaceGit = new WorkspaceGit(sandboxHost, deps.sandbox.gitBaseUrl ?? deps.github.identities.gitUrl);
  // The host's repository caches: built by their own sandboxes, borrowed read-only by resident checkouts.
  const repoCache = repoCacheOf({
    host: sandboxHost,
    git: workspaceGit,
    ...(deps.sandbox.repoCache ? { settings: deps.sandbox.repoCache } : {}),
    ...(deps.sandbox.logger ? { logger: deps.sandbox.logger } : {}),
    ...(deps.sandbox.onRepoCacheChange ? { onChange: deps.sandbox.onRepoCacheChange } : {}),
  });
  return {
    // Runs that need a shell are refused before they start when the sandbox cannot isolate them.
    ...createAgentSetupActivities({
      ...deps.agents,
      ...(deps.spend ? { spend: deps.spend } : {}),
      backends: deps.agents.backends ?? backendsOf(deps),
      sandboxReadiness: () => sandboxHost.readiness(),
    }),
    ...createModelActivities(deps.models),
    ...sandbox,
    ...heartbeating({
      // On a workspace's host queue these have a heartbeat timeout: a host lost mid-call is noticed in seconds.
      readFile: (input: Parameters<typeof sandbox.readFile>[0]) => sandbox.readFile(input),
      writeFile: (input: Parameters<typeof sandbox.writeFile>[0]) => sandbox.writeFile(input),
      jobStatus: (input: Parameters<typeof sandbox.jobStatus>[0]) => sandbox.jobStatus(input),
      prepareWorkspace: (input: Parameters<typeof sandbox.prepareWorkspace>[0]) => sandbox.prepareWorkspace(input),
      closeWorkspace: (input: Parameters<typeof sandbox.closeWorkspace>[0]) => sandbox.closeWorkspace(input),
      releaseWorkspace: (input: Parameters<typeof sandbox.releaseWorkspace>[0]) => sandbox.releaseWorkspace(input),
    }),
    // Every GitHub call and the workspace's git work heartbeat: a lost attempt is retried in seconds.
    ...heartbeating(createGitHubActivities({ ...deps.github, workspaceGit: () => workspaceGit })),
    ...createUnitWorkspaceActivities({
      git: workspaceGit,
      identities: deps.github.identities,
      ...(deps.sandbox.hostTaskQueue ? { hostTaskQueue: deps.sandbox.hostTaskQueue } : {}),
      repoCache,
    }),
    ...createUnitClientActivities({
      ...deps.units,
      githubWebUrl: deps.units.githubWebUrl ?? deps.github.identities.gitUrl,
      ...(deps.webUi ? { namespace: deps.webUi.namespace } : {}),
      ...spendOfUnits(deps),
    }),
    ...createUncertainClientActivities({ client: deps.units.client }),
    // Which hosts hold a repository's cache (the pollers of its resident queue).
    ...createResidentQueueActivities({ client: deps.units.client, taskQueue: deps.units.taskQueue }),
    ...createPlanActivities(),
    ...createRunProgressActivities({ client: deps.units.client }),
    ...createRunStartActivities(deps.runStarts ?? { client: deps.units.client, eager: false }),
    // Team boards: a run reads its board, rem-agent changes it, a thread or unit asks for a consolidation.
    ...createBoardActivities({ client: deps.units.client, taskQueue: deps.units.taskQueue }),
    ...createSpendActivities({ client: deps.units.client, taskQueue: deps.units.taskQueue, ...(deps.spend ? { config: deps.spend } : {}) }),
    ...createStatusActivities({
      logger: deps.logger,
      ...(deps.slack ? { slack: deps.slack } : {}),
      ...(deps.sessionLink ? { sessionLink: deps.sessionLink } : {}),
      ...(deps.github.identities.configured
        ? {
            github: {
              identities: deps.github.identities,
              namespace: deps.webUi?.namespace ?? 'default',
              ...(deps.webUi?.baseUrl ? { webUiBaseUrl: deps.webUi.baseUrl } : {}),
            },
          }
        : {}),
    }),
    ...createWebActivities(deps.web ?? {}),
    ...heartbeating(createSkillActivities({ sandboxHost, dirs: deps.skillDirs ?? [] })),
    // A run's repository instructions: inside its checkout's sandbox, or through the contents API.
    ...heartbeating(createInstructionsActivities({ sandboxHost, identities: deps.github.identities })),
    // MCP servers as tools: stdio ones inside the run's sandbox, HTTP ones through the address guard.
    ...heartbeating(
      createMcpActivities({
        servers: deps.mcp?.servers ?? {},
        sandboxHost,
        ...(deps.sandbox.egress ? { egress: deps.sandbox.egress } : {}),
        gitBaseUrl: deps.sandbox.gitBaseUrl ?? deps.github.identities.gitUrl,
        ...(deps.mcp?.resolver ? { resolver: deps.mcp.resolver } : {}),
        ...(deps.mcp?.env ? { env: deps.mcp.env } : {}),
      }),
    ),
    ...createAttachActivities({
      sandboxHost,
      github: deps.github.identities,
      ...(deps.slack ? { slack: slackClientFactory(deps.slack.client) } : {}),
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;

/** Where caps are configured, a new unit reserves its first round in the deployment's ledger before it starts. */
function spendOfUnits(deps: ActivityDeps): Pick<UnitClientDeps, 'spend'> {
  const { spend } = deps;
  if (!spend || !hasCaps(spend)) return {};
  const ledger = { client: deps.units.client, taskQueue: deps.units.taskQueue, config: spend };
  return { spend: { config: spend, reserve: (request) => reserveThroughLedger(ledger, request) } };
}

function slackClientFactory(client: NonNullable<StatusActivityDeps['slack']>['client']): () => SlackWebClient {
  return typeof client === 'function' ? client : () => client;
}
