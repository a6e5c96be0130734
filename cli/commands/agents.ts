import { type Command } from 'commander';
import {
  type AgentDefinition,
  type AgentsConfig,
  type Catalog,
  type CatalogProblem,
  inactiveReason,
  SURFACES,
  type Surface,
  toolsetName,
  turnGuardFor,
} from '../../agents';
import { loadCatalog } from '../../agents/custom-agents';
import { loadConfig, resolveConfigPath } from '../../infra/config';
import { describeError } from '../../infra/errors';

/** What the agents and profile commands need from the outside; tests pass their own. */
export interface AgentsCommandDeps {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  write?: (text: string) => void;
  setExitCode?: (code: number) => void;
}

export interface OperatorCatalog {
  config: AgentsConfig;
  catalog: Catalog;
  problems: CatalogProblem[];
  /** `models.allowed`, when configured. */
  allowedModels?: string[];
}

/** Loads the config and the catalog (built-ins plus the custom folder, relative to the config's directory). */
export function loadOperatorCatalog(deps: AgentsCommandDeps): OperatorCatalog {
  const loaded = loadConfig({ env: deps.env, cwd: deps.cwd });
  const { customAgentsDir } = loaded.config.agents;
  const folder = customAgentsDir === undefined ? undefined : resolveConfigPath(loaded, customAgentsDir);
  const { allowed } = loaded.config.models;
  return { config: loaded.config.agents, ...loadCatalog(folder), ...(allowed ? { allowedModels: allowed } : {}) };
}

/** Runs a command body, turning a config error into a readable message and exit code 1. */
export async function withCatalog(deps: AgentsCommandDeps, body: (loaded: OperatorCatalog) => number | Promise<number>): Promise<void> {
  const write = writerOf(deps);
  let code: number;
  try {
    code = await body(loadOperatorCatalog(deps));
  } catch (error) {
    write(describeError(error));
    code = 1;
  }
  if (code !== 0) (deps.setExitCode ?? ((value: number) => (process.exitCode = value)))(code);
}

export function writerOf(deps: AgentsCommandDeps): (text: string) => void {
  return deps.write ?? ((text: string) => console.log(text));
}

export function parseSurface(value: string): Surface {
  if (!(SURFACES as readonly string[]).includes(value)) throw new Error(`--surface must be one of ${SURFACES.join(', ')}`);
  return value as Surface;
}

/**
 * `switchboard agents list [--json] [--surface S] [--all]`: the active catalog with toolset,
 * machine, identity and budget; `--all` adds the inactive entries and why each is inactive.
 */
export function registerAgentsCommand(program: Command, deps: AgentsCommandDeps = {}): void {
  const agents = program.command('agents').description('The agent catalog.');
  agents
    .command('list')
    .description(
      'List the active agents (feature flags applied) with toolset, machine, identity and budget; then any custom-agent problems.',
    )
    .option('--json', 'print JSON')
    .option('--surface <surface>', `only agents available on this surface (${SURFACES.join(', ')})`)
    .option('--all', 'also list inactive catalog entries, with why (a feature flag that is off, a surface the agent does not serve)')
    .action(async (options: { json?: boolean; surface?: string; all?: boolean }) => {
      await withCatalog(deps, ({ config, catalog, problems }) => {
        const surface = options.surface === undefined ? undefined : parseSurface(options.surface);
        const entries = catalog.agents.map((agent) => {
          // Without --surface, only the feature flags filter: each agent is checked on a surface it serves.
          const reason = inactiveReason(agent, { featureFlags: config.featureFlags, surface: surface ?? agent.surfaces[0] });
          return { agent, inactive: reason && describeInactive(agent, reason, surface) };
        });
        const shown = options.all ? entries : entries.filter((entry) => entry.inactive === undefined);
        const write = writerOf(deps);
        if (options.json) {
          const agentsJson = shown.map(({ agent, inactive }) => ({
            ...summary(agent),
            ...(options.all ? { active: inactive === undefined, inactiveReason: inactive ?? null } : {}),
          }));
          write(JSON.stringify({ agents: agentsJson, roles: catalog.roles.map(summary), problems }, null, 2));
        } else {
          write(table(shown, Boolean(options.all)));
          for (const problem of problems) write(`problem: ${problem.source}: ${problem.field}: ${problem.message}`);
        }
        return problems.length > 0 ? 1 : 0;
      });
    });
}

/** Why an agent is not active, in the operator's terms (the setting that would change it). */
function describeInactive(agent: AgentDefinition, reason: 'feature_off' | 'surface_excluded', surface: Surface | undefined): string {
  if (reason === 'feature_off') return `feature flag ${agent.featureFlag} is off (agents.featureFlags.${agent.featureFlag})`;
  return `not served on ${surface ?? agent.surfaces[0]} (surfaces: ${agent.surfaces.join(',')})`;
}

function summary(agent: AgentDefinition) {
  return {
    id: agent.id,
    displayName: agent.displayName,
    kind: agent.kind,
    toolset: toolsetName(agent),
    ...(agent.tools ? { tools: agent.tools } : {}),
    machine: agent.machine,
    identity: agent.identity,
    budgetMinutes: agent.budgetMinutes,
    turnGuard: turnGuardFor(agent),
    tokenCap: agent.tokenCap,
    cacheTtl: agent.cacheTtl,
    effort: agent.effort ?? null,
    model: agent.model ?? null,
    routable: agent.routable,
    selfServe: agent.selfServe,
    surfaces: agent.surfaces,
    featureFlag: agent.featureFlag ?? null,
    description: agent.description,
  };
}

function table(entries: Array<{ agent: AgentDefinition; inactive?: string }>, withStatus: boolean): string {
  const rows = [['AGENT', 'TOOLSET', 'MACHINE', 'IDENTITY', 'BUDGET', 'TURNS', 'SURFACES', ...(withStatus ? ['STATUS'] : [])]];
  for (const { agent: a, inactive } of entries) {
    const status = withStatus ? [inactive ? `inactive: ${inactive}` : 'active'] : [];
    rows.push([
      a.id,
      toolsetName(a),
      a.machine,
      a.identity,
      `${a.budgetMinutes} min`,
      String(turnGuardFor(a)),
      a.surfaces.join(','),
      ...status,
    ]);
  }
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
