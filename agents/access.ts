import { type ActiveContext, type Catalog, getAgent, inactiveReason } from './catalog';
import { type AgentsConfig } from './config';
import { type AgentDefinition, listedTools, type Surface } from './definition';
import { holdsShell } from '../tools/toolsets';
import type { RefusalCode } from '../workflows/contracts/refusals';

/** Who is asking, and from where. */
export interface Requester {
  surface: Surface;
  userId?: string;
  channelId?: string;
  /**
   * A self-serve caller: an API or MCP token marked `selfServe` (its own token, no operator
   * in the loop). The rule holds on every surface the token is used from.
   */
  selfServe?: boolean;
  /** A narrower grant the request carries (an API token's `agents`), with the config key that set it. */
  grant?: RequestGrant;
}

/** The agents a request's own credential allows, and the key that says so (e.g. `api.tokens.ci.agents`). */
export interface RequestGrant {
  agents: string[];
  rule: string;
}

/** The access rules' refusal codes (their sentences and kinds: workflows/contracts/refusals.ts). */
export type AccessRefusalCode = Extract<
  RefusalCode,
  | 'agent_unknown'
  | 'agent_feature_off'
  | 'agent_surface_excluded'
  | 'agent_restricted'
  | 'channel_grant'
  | 'person_grant'
  | 'token_grant'
  | 'self_serve_shell'
  | 'self_serve_excluded'
>;

export interface Refusal {
  ok: false;
  code: AccessRefusalCode;
  /** The config key or rule that refused, e.g. `restrict.agents.coding`. */
  rule: string;
  /** A plain answer for the person: what refused and what they may use instead. */
  message: string;
  /** The agents this requester may use here. */
  alternatives: string[];
}

export type Authorization = { ok: true; agent: AgentDefinition } | Refusal;

/**
 * Whether `requester` may run agent `agentId`. Checked in order: the catalog, the active
 * set (feature flag, surface), `restrict.agents`, the channel's grant, the person's grant,
 * the request's own grant (an API token's agents), and the self-serve exclusion (never an
 * agent with a shell or a workspace).
 */
export function authorize(catalog: Catalog, config: AgentsConfig, requester: Requester, agentId: string): Authorization {
  const agent = getAgent(catalog, agentId);
  const failure = agent ? firstFailure(agent, config, requester) : ({ code: 'agent_unknown', rule: 'catalog' } as const);
  if (!failure) return { ok: true, agent: agent! };
  const alternatives = usableAgents(catalog, config, requester).filter((id) => id !== agentId);
  return { ok: false, ...failure, message: refusalMessage(agentId, failure, alternatives), alternatives };
}

/**
 * Every agent id this requester may run here from a message, in catalog order: a board's own
 * agent (rem-agent, which holds context_board) is started by a board, never by a message.
 */
export function usableAgents(catalog: Catalog, config: AgentsConfig, requester: Requester): string[] {
  return catalog.agents
    .filter((agent) => firstFailure(agent, config, requester) === undefined && !listedTools(agent).includes('context_board'))
    .map((agent) => agent.id);
}

/** True for an agent that can reach a shell: it holds bash, or it runs in (or starts runs in) a workspace. */
export function reachesShell(agent: AgentDefinition): boolean {
  return holdsShell(listedTools(agent)) || agent.machine !== 'none';
}

type Failure = { code: AccessRefusalCode; rule: string };

function firstFailure(agent: AgentDefinition, config: AgentsConfig, requester: Requester): Failure | undefined {
  const context: ActiveContext = { featureFlags: config.featureFlags, surface: requester.surface };
  const inactive = inactiveReason(agent, context);
  if (inactive === 'feature_off') return { code: 'agent_feature_off', rule: `featureFlags.${agent.featureFlag}` };
  if (inactive === 'surface_excluded') return { code: 'agent_surface_excluded', rule: `${agent.id}.surfaces` };

  const restricted = config.restrict.agents[agent.id];
  if (restricted !== undefined && (requester.userId === undefined || !restricted.includes(requester.userId))) {
    return { code: 'agent_restricted', rule: `restrict.agents.${agent.id}` };
  }
  const channel = requester.channelId === undefined ? undefined : config.channels[requester.channelId];
  if (channel?.allowedAgents !== undefined && !channel.allowedAgents.includes(agent.id)) {
    return { code: 'channel_grant', rule: `channels.${requester.channelId}.allowedAgents` };
  }
  const person = requester.userId === undefined ? undefined : config.grants.people[requester.userId];
  if (person?.agents !== undefined && !person.agents.includes(agent.id)) {
    return { code: 'person_grant', rule: `grants.people.${requester.userId}.agents` };
  }
  if (requester.grant !== undefined && !requester.grant.agents.includes(agent.id)) {
    return { code: 'token_grant', rule: requester.grant.rule };
  }
  if (requester.selfServe === true) {
    if (reachesShell(agent)) return { code: 'self_serve_shell', rule: 'self-serve MCP never reaches an agent with a shell' };
    if (!agent.selfServe) return { code: 'self_serve_excluded', rule: `${agent.id}.selfServe` };
  }
  return undefined;
}

function refusalMessage(agentId: string, failure: Failure, alternatives: string[]): string {
  const instead = alternatives.length > 0 ? ` You may use: ${alternatives.join(', ')}.` : ' There is no agent you may use here.';
  const reasons: Record<AccessRefusalCode, string> = {
    agent_unknown: `There is no agent called "${agentId}".`,
    agent_feature_off: `The ${agentId} agent is switched off here (${failure.rule}).`,
    agent_surface_excluded: `The ${agentId} agent is not available from this surface (${failure.rule}).`,
    agent_restricted: `The ${agentId} agent is limited to named people (${failure.rule}), and you are not one of them.`,
    channel_grant: `This channel does not allow the ${agentId} agent (${failure.rule}).`,
    person_grant: `Your access does not include the ${agentId} agent (${failure.rule}).`,
    token_grant: `Your API token does not include the ${agentId} agent (${failure.rule}).`,
    self_serve_shell: `The ${agentId} agent holds a shell, and a self-serve MCP caller never reaches an agent with a shell.`,
    self_serve_excluded: `The ${agentId} agent is not open to self-serve MCP callers (${failure.rule}).`,
  };
  return `${reasons[failure.code]}${instead}`;
}
