import { type AgentDefinition, type Surface } from './definition';
import { BUILTIN_AGENTS, BUILTIN_ROLES } from './builtins';

/**
 * Every agent and role Switchboard knows: built-ins plus custom definitions. A plain,
 * serialisable object, so a workflow can carry it in its input.
 */
export interface Catalog {
  agents: AgentDefinition[];
  roles: AgentDefinition[];
}

/** A definition that could not join the catalog; `source` is a file path or `builtin`. */
export interface CatalogProblem {
  source: string;
  field: string;
  message: string;
}

/**
 * Merges custom definitions into the built-ins. A custom id that repeats any known id (agent
 * or role) is reported and skipped: the only name both namespaces share is the built-in
 * `explore`, deliberately (docs/agents.md, "Two namespaces").
 */
export function buildCatalog(custom: ReadonlyArray<{ definition: AgentDefinition; source: string }> = []): {
  catalog: Catalog;
  problems: CatalogProblem[];
} {
  const catalog: Catalog = { agents: [...BUILTIN_AGENTS], roles: [...BUILTIN_ROLES] };
  const problems: CatalogProblem[] = [];
  for (const { definition, source } of custom) {
    const taken = [...catalog.agents, ...catalog.roles].some((known) => known.id === definition.id);
    if (taken) {
      problems.push({ source, field: 'id', message: `"${definition.id}" is already an agent or role; custom ids must be new` });
      continue;
    }
    (definition.kind === 'role' ? catalog.roles : catalog.agents).push(definition);
  }
  return { catalog, problems };
}

/** The built-in catalog alone. */
export function builtinCatalog(): Catalog {
  return buildCatalog().catalog;
}

/** The agent `id` (not a role), or undefined. */
export function getAgent(catalog: Catalog, id: string): AgentDefinition | undefined {
  return catalog.agents.find((agent) => agent.id === id);
}

/** The specialist role `id`, or undefined. */
export function getRole(catalog: Catalog, id: string): AgentDefinition | undefined {
  return catalog.roles.find((role) => role.id === id);
}

/** The definition a profile was resolved from (an agent, or a role for a role child), or undefined. */
export function definitionOf(catalog: Catalog, profile: { agent: string; kind: 'agent' | 'role' }): AgentDefinition | undefined {
  return profile.kind === 'role' ? getRole(catalog, profile.agent) : getAgent(catalog, profile.agent);
}

/** What decides availability: catalog membership is not enough. */
export interface ActiveContext {
  featureFlags: Readonly<Record<string, boolean>>;
  surface: Surface;
}

/** Why a cataloged agent is not active here, or undefined when it is. */
export function inactiveReason(agent: AgentDefinition, context: ActiveContext): 'feature_off' | 'surface_excluded' | undefined {
  if (agent.featureFlag !== undefined && context.featureFlags[agent.featureFlag] !== true) return 'feature_off';
  if (!agent.surfaces.includes(context.surface)) return 'surface_excluded';
  return undefined;
}

/** The active set: catalog agents whose feature flag is on (if any) and that serve this surface. */
export function activeAgents(catalog: Catalog, context: ActiveContext): AgentDefinition[] {
  return catalog.agents.filter((agent) => inactiveReason(agent, context) === undefined);
}
