import { type Catalog, getAgent } from './catalog';
import { type AgentsConfig } from './config';
import { type AgentDefinition, listedTools, toolsetName, turnGuardFor } from './definition';
import type { McpAdmission } from '../workflows/contracts/mcp';
import { complementaryModel, complementaryRolesOff } from './complementary';
import type { Profile } from '../workflows/contracts/profile';
import { mcpOf, type ProfileInput, usableTools } from './profile';
import { publishes } from '../tools/toolsets';

/** A run may delegate this many levels deep (a child of a child is the limit). */
export const MAX_TASK_DEPTH = 2;

/**
 * The tools a role holds inside a parent session. `inherit` takes the parent's tools, `task`
 * included while the child may still delegate (`depth`, the child's own, is under
 * MAX_TASK_DEPTH), so `worker`, `debug` and `general-purpose` work with whatever the session has
 * (002); at the limit `task` is left out rather than offered and refused. An exact list (a
 * toolset, or the definition's own `tools`) is intersected with the parent's, so a listed tool
 * the parent lacks is simply absent.
 */
export function roleTools(role: AgentDefinition, parentTools: readonly string[], depth = MAX_TASK_DEPTH): string[] {
  if (role.toolset === 'inherit') return parentTools.filter((tool) => tool !== 'task' || depth < MAX_TASK_DEPTH);
  const listed = listedTools(role);
  return listed.filter((tool) => parentTools.includes(tool));
}

export interface RoleProfileInput {
  role: AgentDefinition;
  parent: Profile;
  /** The child's depth (1 for a child of a top-level run); absent: the deepest, so `task` is not inherited. */
  depth?: number;
  /** `agents.entries`: the role's configured model and effort. */
  config?: Pick<AgentsConfig, 'entries'>;
  /** Minutes the parent run has left; the child's budget never outlives it. */
  parentRemainingMinutes?: number;
  /** The task call's `model`, if it named one. */
  model?: string;
}

/**
 * A child run's profile for a specialist role: the parent's machine, identity and
 * repository (the child runs in the parent's session), the role's own tool boundary and
 * budget ceiling, bounded by what the parent has left. The model and effort are the parent's
 * unless the role has its own (its definition, then `agents.entries.<role>`); the task call's
 * `model` wins over both. A role that inherits the parent's tools inherits its MCP servers too.
 */
export function resolveRoleProfile(input: RoleProfileInput): Profile {
  const { role, parent } = input;
  const remaining = input.parentRemainingMinutes ?? parent.budget.minutes;
  const minutes = Math.min(role.budgetMinutes, remaining);
  const tools = roleTools(role, parent.tools, input.depth);
  const entry = (input.config?.entries ?? {})[role.id];
  // A complementary role (rubber-duck) runs on a model of another family than its parent's.
  const complementary = complementaryModel(role, parent.model.value, input.config);
  const ownModel = complementary ?? entry?.model ?? role.model;
  const ownEffort = entry?.effort ?? role.effort;
  const { mcp: _parentMcp, result: _parentResult, ...inherited } = parent;
  return {
    ...inherited,
    agent: role.id,
    displayName: role.displayName,
    kind: 'role',
    toolset: toolsetName(role),
    tools,
    ...offFor(role, parent),
    ...(role.toolset === 'inherit' ? mcpOf(parent.mcp) : {}),
    ...(role.result !== 'answer' ? { result: role.result } : {}),
    model:
      input.model !== undefined
        ? { value: input.model, chosenBy: 'directive' }
        : ownModel !== undefined
          ? { value: ownModel, chosenBy: complementary || entry?.model ? 'entry' : 'preset' }
          : parent.model,
    effort: ownEffort !== undefined ? { value: ownEffort, chosenBy: entry?.effort ? 'entry' : 'preset' } : parent.effort,
    budget: {
      minutes,
      boundedBy: minutes < role.budgetMinutes ? 'parent' : 'preset',
      presetMinutes: role.budgetMinutes,
      limits: {},
      directiveNarrowedNothing: false,
    },
    turnGuard: role.turnGuard ?? minutes * 6,
    tokenCap: role.tokenCap,
    cacheTtl: role.cacheTtl,
    ignoredDirectives: [],
  };
}

export interface AgentChildProfileInput {
  agent: AgentDefinition;
  parent: Profile;
  /** Minutes the parent run has left; the child's budget never outlives it. */
  parentRemainingMinutes?: number;
  /** The task call's `model`, if it named one. */
  model?: string;
  /** The deployment's tool backends (AgentSetup.backends): tools the child cannot use are taken out. */
  tooling?: ProfileInput['tooling'];
  /** `agents.entries`: the agent's configured model and effort. */
  config?: Pick<AgentsConfig, 'entries'>;
  /** The agent's MCP servers as the admission let this person use them. */
  mcp?: McpAdmission;
}

/**
 * A child run's profile for a read-only agent (a `task` target that is an agent, not a role):
 * the agent's own machine class, identity and tools, because it runs in a session of its own
 * (an `explore` child of a conductor clones the repository into a cold sandbox of its own);
 * the parent's repository and model; a budget bounded by what the parent has left. A child on a
 * repository machine class reaches a repository its parent's thread never vetted, so the
 * parent vets it before the child starts (workflows/run/task-children.ts).
 */
export function resolveAgentChildProfile(input: AgentChildProfileInput): Profile {
  const { agent, parent } = input;
  const remaining = input.parentRemainingMinutes ?? parent.budget.minutes;
  const minutes = Math.min(agent.budgetMinutes, remaining);
  const entry = (input.config?.entries ?? {})[agent.id];
  return {
    agent: agent.id,
    displayName: agent.displayName,
    kind: agent.kind,
    toolset: toolsetName(agent),
    ...usableTools(agent, input.tooling),
    machine: agent.machine,
    identity: agent.identity,
    model:
      input.model !== undefined
        ? { value: input.model, chosenBy: 'directive' }
        : entry?.model !== undefined
          ? { value: entry.model, chosenBy: 'entry' }
          : parent.model,
    effort: entry?.effort !== undefined ? { value: entry.effort, chosenBy: 'entry' } : parent.effort,
    budget: {
      minutes,
      boundedBy: minutes < agent.budgetMinutes ? 'parent' : 'preset',
      presetMinutes: agent.budgetMinutes,
      limits: {},
      directiveNarrowedNothing: false,
    },
    turnGuard: turnGuardFor(agent, minutes),
    tokenCap: agent.tokenCap,
    cacheTtl: agent.cacheTtl,
    ...(parent.repo ? { repo: parent.repo } : {}),
    ignoredDirectives: [],
    ...mcpOf(input.mcp),
  };
}

/** What of the parent's switched-off tools the role would have held, so its About block says so too. */
function offFor(role: AgentDefinition, parent: Profile): Pick<Profile, 'toolsOff'> {
  const listed: readonly string[] = role.toolset === 'inherit' ? [] : listedTools(role);
  const off = (parent.toolsOff ?? []).filter((entry) => role.toolset === 'inherit' || listed.includes(entry.tool));
  return { toolsOff: off };
}

/**
 * Whether an agent may be a `task` child: it must not write outside its sandbox (no write
 * identity, no publishing tool), must not be a pipeline, and must not delegate again.
 */
export function isDelegableAgent(agent: AgentDefinition): boolean {
  const tools = listedTools(agent);
  return agent.identity !== 'write' && agent.pipeline === undefined && !publishes(tools) && !tools.includes('task');
}

export type TaskTarget =
  | { ok: true; kind: 'role'; definition: AgentDefinition }
  | { ok: true; kind: 'agent'; definition: AgentDefinition }
  | { ok: false; code: 'task_target_unknown' | 'task_target_writes' | 'task_target_unavailable'; message: string; choices: string[] };

/**
 * Resolves the task tool's `agent_type`. Roles run inside the parent's workspace, so they
 * exist only for a parent that has one, and there they come first: `explore` from a coding
 * run is the fast search role. A parent without a workspace (conductor) has no roles, so
 * `explore` there is the long explore agent with its own cold sandbox (resolveAgentChildProfile). Any agent target
 * must be read-only; the caller still authorises the requester for it.
 */
export function resolveTaskTarget(
  catalog: Catalog,
  agentType: string,
  parent: Pick<Profile, 'machine'> & { model?: Profile['model'] },
  config?: Pick<AgentsConfig, 'entries'>,
): TaskTarget {
  const off = parent.model ? complementaryRolesOff(catalog.roles, parent.model.value, config) : [];
  const rolesHere = parent.machine === 'none' ? [] : catalog.roles;
  const role = rolesHere.find((candidate) => candidate.id === agentType);
  const unavailable = off.find((entry) => entry.role === agentType);
  if (role && unavailable) {
    const choices = unique([
      ...rolesHere.filter((r) => !off.some((o) => o.role === r.id)).map((r) => r.id),
      ...catalog.agents.filter(isDelegableAgent).map((a) => a.id),
    ]);
    return {
      ok: false,
      code: 'task_target_unavailable',
      message: `"${agentType}" is not offered to this run: ${unavailable.why}. You can delegate to: ${choices.join(', ')}.`,
      choices,
    };
  }
  if (role) return { ok: true, kind: 'role', definition: role };
  const choices = [...rolesHere.map((r) => r.id), ...catalog.agents.filter(isDelegableAgent).map((a) => a.id)];
  const agent = getAgent(catalog, agentType);
  if (!agent) {
    return {
      ok: false,
      code: 'task_target_unknown',
      message: `No role or agent called "${agentType}". You can delegate to: ${unique(choices).join(', ')}.`,
      choices: unique(choices),
    };
  }
  if (!isDelegableAgent(agent)) {
    return {
      ok: false,
      code: 'task_target_writes',
      message: `"${agentType}" writes outside its sandbox, so it cannot be a child run. You can delegate to: ${unique(choices).join(', ')}.`,
      choices: unique(choices),
    };
  }
  return { ok: true, kind: 'agent', definition: agent };
}

function unique(names: string[]): string[] {
  return names.filter((name, index) => names.indexOf(name) === index);
}
