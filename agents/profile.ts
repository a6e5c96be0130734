import { type AgentsConfig } from './config';
import { type AgentDefinition, listedTools, toolsetName, turnGuardFor } from './definition';
import { type Directives } from './directives';
import { BUILTIN_ROLES } from './builtins';
import { complementaryRolesOff } from './complementary';
import { availableTools, type ToolBackends, type ToolContext } from '../tools/availability';
import type { McpAdmission } from '../workflows/contracts/mcp';
import type { BudgetResolution, Chosen, Effort, IgnoredDirective, Machine, Profile } from '../workflows/contracts/profile';

export interface ProfileInput {
  agent: AgentDefinition;
  config: AgentsConfig;
  channelId?: string;
  userId?: string;
  directives: Directives;
  ignoredDirectives?: IgnoredDirective[];
  /**
   * The deployment's tool backends and the conversation the run answers in: tools that
   * cannot work there are taken out of the list. Without it the toolset is taken whole.
   */
  tooling?: { backends: ToolBackends; conversation: ToolContext['conversation'] };
  /** The MCP servers the admission let this person's run use (agents/mcp.ts `admitMcp`). */
  mcp?: McpAdmission;
}

/**
 * Resolves a run's profile through the layers defaults -> agent -> channel -> person ->
 * directive. The budget only narrows: each layer may lower it, never raise it, and the
 * profile records which layer bounded it. Model and effort are choices, not limits: the
 * latest layer that names one wins. Machine, identity and tools come from the agent alone;
 * no layer can change what kind of work a run does. Tools whose backend this deployment
 * lacks are taken out (`toolsOff` says which and why).
 */
export function resolveProfile(input: ProfileInput): Profile {
  const { agent, config, directives } = input;
  const channel = input.channelId === undefined ? undefined : config.channels[input.channelId];
  const person = input.userId === undefined ? undefined : config.grants.people[input.userId];

  const budget = resolveBudget(agent.budgetMinutes, channel?.budgetMinutes, person?.budgetMinutes, directives.budgetMinutes);
  // Recorded setups from before `entries` existed carry none.
  const entry = (config.entries ?? {})[agent.id];
  const model = choose<string>(config.defaults.model, agent.model, entry?.model, channel?.model, person?.model, directives.model);
  const effort = choose<Effort>(config.defaults.effort, agent.effort, entry?.effort, channel?.effort, person?.effort, directives.effort);
  const repo: Chosen<string> | undefined =
    directives.repo !== undefined
      ? { value: directives.repo, chosenBy: 'directive' }
      : channel?.defaultRepo !== undefined
        ? { value: channel.defaultRepo, chosenBy: 'channel' }
        : undefined;

  return {
    agent: agent.id,
    displayName: agent.displayName,
    kind: agent.kind,
    toolset: toolsetName(agent),
    ...usableTools(agent, input.tooling),
    machine: agent.machine,
    identity: agent.identity,
    model,
    effort,
    budget,
    // An explicit guard stays; a derived one follows the budget the run actually has.
    turnGuard: turnGuardFor(agent, budget.minutes),
    tokenCap: agent.tokenCap,
    cacheTtl: agent.cacheTtl,
    ...(repo ? { repo } : {}),
    ...(agent.pipeline ? { pipeline: agent.pipeline } : {}),
    ignoredDirectives: input.ignoredDirectives ?? [],
    ...mcpOf(input.mcp),
    ...rolesOffFor(listedTools(agent), agent.machine, model.value, config),
  };
}

/** The built-in complementary roles a run with `task` and a workspace (where roles exist) is not offered. */
function rolesOffFor(tools: readonly string[], machine: Machine, model: string, config: AgentsConfig): Pick<Profile, 'rolesOff'> {
  if (!tools.includes('task') || machine === 'none') return {};
  const off = complementaryRolesOff(BUILTIN_ROLES, model, config);
  return off.length ? { rolesOff: off } : {};
}

/** The profile's `mcp` field: present only when some server is attached (older profiles have none). */
export function mcpOf(mcp: McpAdmission | undefined): Pick<Profile, 'mcp'> {
  return mcp && (mcp.servers.length > 0 || mcp.off.length > 0) ? { mcp } : {};
}

/** The agent's toolset less the tools this deployment cannot run (`toolsOff` says which and why); whole without `tooling`. */
export function usableTools(agent: AgentDefinition, tooling?: ProfileInput['tooling']): Pick<Profile, 'tools' | 'toolsOff'> {
  const listed = [...listedTools(agent)];
  const usable = tooling
    ? availableTools(listed, tooling.backends, { machine: agent.machine, conversation: tooling.conversation })
    : { tools: listed, off: [] };
  return { tools: usable.tools, ...(usable.off.length ? { toolsOff: usable.off } : {}) };
}

/** Applies the budget layers in order; each may only lower the bound. */
export function resolveBudget(preset: number, channel?: number, person?: number, directive?: number): BudgetResolution {
  const budget: BudgetResolution = {
    minutes: preset,
    boundedBy: 'preset',
    presetMinutes: preset,
    limits: {},
    directiveNarrowedNothing: false,
  };
  if (channel !== undefined && channel < budget.minutes) {
    budget.minutes = channel;
    budget.boundedBy = 'channel';
    budget.limits.channel = channel;
  }
  if (person !== undefined && person < budget.minutes) {
    budget.minutes = person;
    budget.boundedBy = 'person';
    budget.limits.person = person;
  }
  if (directive !== undefined) {
    budget.requestedMinutes = directive;
    if (directive < budget.minutes) {
      budget.minutes = directive;
      budget.boundedBy = 'directive';
    } else {
      budget.directiveNarrowedNothing = true;
    }
  }
  return budget;
}

function choose<T>(fallback: T, preset?: T, entry?: T, channel?: T, person?: T, directive?: T): Chosen<T> {
  if (directive !== undefined) return { value: directive, chosenBy: 'directive' };
  if (person !== undefined) return { value: person, chosenBy: 'person' };
  if (channel !== undefined) return { value: channel, chosenBy: 'channel' };
  if (entry !== undefined) return { value: entry, chosenBy: 'entry' };
  if (preset !== undefined) return { value: preset, chosenBy: 'preset' };
  return { value: fallback, chosenBy: 'default' };
}

const LIMIT_WORDS: Record<'channel' | 'person' | 'parent', string> = {
  channel: 'channel limit',
  person: 'personal limit',
  parent: "parent run's remaining time",
};

/**
 * The budget in words, as the card, the config block and the CLI show it, e.g.
 * "30 min (budget directive; preset asks 120)" or "120 min (preset; budget:200 narrowed nothing)".
 */
export function describeBudget(budget: BudgetResolution): string {
  const parts: string[] = [];
  if (budget.boundedBy === 'directive') parts.push('budget directive');
  else if (budget.boundedBy === 'preset') parts.push('preset');
  else parts.push(LIMIT_WORDS[budget.boundedBy]);
  if (budget.boundedBy === 'directive') {
    if (budget.limits.person !== undefined) parts.push(`personal limit ${budget.limits.person}`);
    else if (budget.limits.channel !== undefined) parts.push(`channel allows ${budget.limits.channel}`);
  }
  if (budget.boundedBy !== 'preset') parts.push(`preset asks ${budget.presetMinutes}`);
  if (budget.directiveNarrowedNothing) parts.push(`budget:${budget.requestedMinutes} narrowed nothing`);
  return `${budget.minutes} min (${parts.join('; ')})`;
}
