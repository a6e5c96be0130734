import { type AgentsConfig, type Catalog, type CatalogProblem, type McpAttachmentConfig, type McpSetup } from '../../agents';
import { loadCatalog } from '../../agents/custom-agents';
import type { FindingSeverity } from '../../workflows/contracts/findings';
import { ALL_BACKENDS, type ToolBackends } from '../../tools';
import { type Logger } from '../../infra/logger';
import { type SandboxReadiness } from '../sandbox/isolation';
import { hasCaps, type SpendConfig } from '../../infra/config/spend-section';
import { type AdmissionConfig } from '../../infra/config/admission-section';
import { type RepositoriesConfig } from '../../infra/config/repository-section';
import { type RepositoryAgents } from '../../agents/admission';
import { boardPolicy, channelBoardId, type BoardPolicy } from '../../agents/board';
import { type BoardConfig } from '../../infra/config/board-section';

/** The settings ship units and plans run by (from the `review`, `ship` and `plan` sections). */
export interface ShipSettings {
  addressSeverity: FindingSeverity;
  maxRounds: number;
  checksPollSeconds: number;
  checksTimeoutMinutes: number;
  idleTimeoutDays: number;
  reminderHours: number;
  baseBranch?: string;
  planMergeAuthority: boolean;
  /** Where units and coding runs create their branches (`github.pushes.branchPrefix`); absent in setups recorded before it: `switchboard/`. */
  branchPrefix?: string;
}

export interface AgentSetup {
  catalog: Catalog;
  config: AgentsConfig;
  ship: ShipSettings;
  /** Which tool backends this deployment has configured; absent in setups recorded before they were reported. */
  backends?: ToolBackends;
  /** `models.allowed`: what a chat `model:` may name (absent: the configured models, see `allowedModels`). */
  allowedModels?: string[];
  /** Whether this worker can run shell commands isolated; a run that needs a shell is refused when not. */
  sandbox?: SandboxReadiness;
  /** The spend caps (the `spend` section), when any are configured: the thread checks a start against them. */
  spend?: SpendConfig;
  /** The `admission` section (GitHub roles, operators); absent in setups recorded before it was reported: its defaults. */
  admission?: AdmissionConfig;
  /** The agents the deployment's `repositories` section allows per repository (absent: it names none). */
  repositories?: Record<string, RepositoryAgents>;
  /** MCP attachments the deployment's `repositories` section adds per repository and agent (absent: none). */
  repositoryMcp?: Record<string, Record<string, McpAttachmentConfig[]>>;
  /** The MCP servers and which agents they are attached to (the `mcp` section, without commands, URLs or variables); absent: none. */
  mcp?: McpSetup;
  /** The team boards of Slack channels (the `board` section's `channels`), by channel id; absent: none. */
  channelBoards?: Record<string, BoardPolicy>;
  /** Repositories' team boards, by lower-case owner/name, where a door read the repository's settings (workflows/thread/repo-settings.ts). */
  repositoryBoards?: Record<string, BoardPolicy>;
}

export const DEFAULT_SHIP_SETTINGS: ShipSettings = {
  addressSeverity: 'minor',
  maxRounds: 3,
  checksPollSeconds: 120,
  checksTimeoutMinutes: 60,
  idleTimeoutDays: 7,
  reminderHours: 48,
  planMergeAuthority: true,
};

export interface AgentSetupDeps {
  /** The `agents` config section. */
  config: AgentsConfig;
  /** The custom agents folder, resolved to an absolute path (none: built-ins only). */
  customAgentsDir?: string;
  /** Ship and review settings; defaults when omitted. */
  ship?: ShipSettings;
  /** The deployment's tool backends (from config and secrets); every tool's backend counts as present when omitted. */
  backends?: ToolBackends;
  /** `models.allowed` (absent: the models the config already names). */
  allowedModels?: string[];
  logger?: Logger;
  /** The sandbox's readiness (bubblewrap here, or unisolated by configuration). */
  sandboxReadiness?: () => Promise<SandboxReadiness>;
  /** The `spend` section (spend caps). */
  spend?: SpendConfig;
  /** The `admission` section (defaults when omitted). */
  admission?: AdmissionConfig;
  /** The `repositories` section: its `agents.allowed` limits which agents run on each repository. */
  repositories?: RepositoriesConfig;
  /** The `mcp` section as decisions need it (none: no MCP servers). */
  mcp?: McpSetup;
  /** The `board` section: Slack channels' boards (none: no channel has one). */
  board?: BoardConfig;
}

/** The deployment's channel boards, by channel id, as policies (the board id's team is the conversation's: agents/board.ts `channelBoard`). */
export function channelBoards(board: BoardConfig | undefined): Record<string, BoardPolicy> | undefined {
  const entries = Object.entries(board?.channels ?? {}).map(
    ([channel, settings]) =>
      [channel, boardPolicy(channelBoardId('*', channel), undefined, settings, `board.channels.${channel}`)] as const,
  );
  return entries.length ? Object.fromEntries(entries) : undefined;
}

/** The deployment's per-repository MCP attachments, by lower-case owner/name then agent id, for the admission. */
export function repositoryMcp(
  repositories: RepositoriesConfig | undefined,
): Record<string, Record<string, McpAttachmentConfig[]>> | undefined {
  const entries = Object.entries(repositories ?? {}).flatMap(([repo, settings]) =>
    settings.mcp?.agents && Object.keys(settings.mcp.agents).length > 0 ? [[repo.toLowerCase(), settings.mcp.agents] as const] : [],
  );
  return entries.length ? Object.fromEntries(entries) : undefined;
}

/** The deployment's per-repository agent lists, by lower-case owner/name, for the admission. */
export function repositoryAgents(repositories: RepositoriesConfig | undefined): Record<string, RepositoryAgents> | undefined {
  const entries = Object.entries(repositories ?? {}).flatMap(([repo, settings]) =>
    settings.agents?.allowed
      ? [[repo.toLowerCase(), { allowed: settings.agents.allowed, rule: `repositories.${repo}.agents.allowed` }] as const]
      : [],
  );
  return entries.length ? Object.fromEntries(entries) : undefined;
}

/**
 * Reads the agent catalog (built-ins plus the custom folder) and the agents config, for
 * workflow code to resolve profiles and access with the pure agents layer; the same setup is
 * what the server's doors admit requests by (agents/admission.ts `AdmissionFacts`). A bad custom
 * file is logged and skipped, never failing the request.
 */
export function createAgentSetupActivities(deps: AgentSetupDeps) {
  let reported = new Set<string>();
  return {
    async loadAgentSetup(): Promise<AgentSetup> {
      const { catalog, problems } = loadCatalog(deps.customAgentsDir);
      reported = reportOnce(problems, reported, deps.logger);
      const sandbox = await deps.sandboxReadiness?.();
      const repositories = repositoryAgents(deps.repositories);
      const attachments = repositoryMcp(deps.repositories);
      const boards = channelBoards(deps.board);
      return {
        catalog,
        config: deps.config,
        ship: deps.ship ?? DEFAULT_SHIP_SETTINGS,
        backends: deps.backends ?? ALL_BACKENDS,
        ...(deps.allowedModels ? { allowedModels: deps.allowedModels } : {}),
        ...(sandbox ? { sandbox } : {}),
        ...(deps.spend && hasCaps(deps.spend) ? { spend: deps.spend } : {}),
        ...(deps.admission ? { admission: deps.admission } : {}),
        ...(repositories ? { repositories } : {}),
        ...(attachments ? { repositoryMcp: attachments } : {}),
        ...(deps.mcp && Object.keys(deps.mcp.servers).length > 0 ? { mcp: deps.mcp } : {}),
        ...(boards ? { channelBoards: boards } : {}),
      };
    },
  };
}

function reportOnce(problems: CatalogProblem[], seen: Set<string>, logger?: Logger): Set<string> {
  const next = new Set<string>();
  for (const problem of problems) {
    const key = `${problem.source}:${problem.field}:${problem.message}`;
    next.add(key);
    if (!seen.has(key)) logger?.warn({ source: problem.source, field: problem.field }, `custom agent skipped: ${problem.message}`);
  }
  return next;
}
