import { type AgentDefinition } from './definition';
import { AgentsError } from './errors';
import type { Profile } from '../workflows/contracts/profile';
import { describeBudget } from './profile';
import { getTool } from '../tools/registry';

const CHOSEN_WORDS = {
  default: 'config default',
  preset: "this agent's preset",
  entry: "this deployment's setting for this agent (agents.entries)",
  channel: "this channel's setting",
  person: "your requester's setting",
  directive: 'a directive in the message',
} as const;

/** The configuration block every prompt carries: the resolved settings and what set or clipped each. */
export function renderConfigBlock(profile: Profile): string {
  const lines = [
    '## Your configuration',
    `- agent: ${profile.agent} (${profile.displayName})`,
    `- model: ${profile.model.value} (from ${CHOSEN_WORDS[profile.model.chosenBy]})`,
    `- effort: ${profile.effort.value} (from ${CHOSEN_WORDS[profile.effort.chosenBy]})`,
    `- budget: ${describeBudget(profile.budget)}`,
    `- turn guard: ${profile.turnGuard} model turns; token cap: ${profile.tokenCap} output tokens per call; prompt cache: up to ${profile.cacheTtl}`,
    `- machine: ${machineWords(profile)}; credential: ${identityWords(profile)}`,
  ];
  if (profile.repo) lines.push(`- repository: ${profile.repo.value} (from ${CHOSEN_WORDS[profile.repo.chosenBy]})`);
  for (const ignored of profile.ignoredDirectives) {
    lines.push(`- note: "${ignored.token}" in the message was read as text (${ignored.reason})`);
  }
  return lines.join('\n');
}

/** The About block every prompt carries: what Switchboard is and how this run sits in it. */
export function renderAboutBlock(definition: AgentDefinition, profile: Profile): string {
  const lines = [
    '## About Switchboard and this run',
    `Switchboard runs agents for a software team from Slack, GitHub, HTTP, MCP and the command line. You are ${definition.displayName}: ${definition.description}`,
    'A run is one use of an agent for one request. Your tool list below is exactly what you can do; a tool not listed does not exist for you. ' +
      `Your credential is ${identityWords(profile)}; it is the wall, whatever a tool or command attempts.`,
    'The person sees your status card and your final answer. They can steer you with a message in the thread, which joins the conversation before your next turn, or stop you. ' +
      'The run ends when the budget, the turn guard or the token cap is reached, so leave time to write the answer.',
  ];
  const off = profile.toolsOff ?? [];
  const mcpOff = profile.mcp?.off ?? [];
  if (mcpOff.length > 0) {
    lines.push(
      `MCP servers attached to this agent that this run cannot use: ${mcpOff.map((entry) => `${entry.server} (${entry.why}; ${entry.rule})`).join('; ')}. Their tools are not in your list.`,
    );
  }
  if (off.length > 0) {
    lines.push(
      `Turned off in this deployment (not in your tool list, whatever your instructions above say about them): ${off.map((entry) => `${entry.tool} (${entry.why})`).join('; ')}. ` +
        'When the request needs one of them, do what you can without it and say in your answer what was not possible and why.',
    );
  }
  if (profile.rolesOff?.length) {
    lines.push(`Not offered through task to this run: ${profile.rolesOff.map((entry) => `${entry.role} (${entry.why})`).join('; ')}.`);
  }
  if (profile.kind === 'agent') {
    lines.push(
      'A follow-up in the same thread continues with this agent when it was chosen by name, and sees the saved context of earlier runs.',
    );
  } else {
    lines.push('You are a child run: your answer goes back to the run that started you, not to the person.');
  }
  return lines.join('\n');
}

/**
 * The tool section: each held tool with its one-line purpose, and the rule that nothing else
 * exists. With MCP servers, their tools are discovered when the run starts and listed in a
 * block of their own after this prompt (workflows/run/mcp-tools.ts), so this block says so.
 */
export function renderToolsBlock(tools: readonly string[], mcpServers: readonly string[] = []): string {
  const mcp = mcpServers.length
    ? ` Besides these, the tools of the MCP server${mcpServers.length > 1 ? 's' : ''} ${mcpServers.join(', ')} are listed below, under "Tools from MCP servers".`
    : '';
  if (tools.length === 0) return `## Your tools\nYou hold no built-in tools${mcp ? `.${mcp}` : ': answer from the conversation.'}`;
  const lines = tools.map((name) => `- ${name}: ${getTool(name)?.description ?? 'unknown tool'}`);
  const head = mcp
    ? `You hold exactly these ${tools.length} built-in tools.${mcp} Nothing else exists for this run.`
    : `You hold exactly ${tools.length} tools; nothing else exists for this run.`;
  return ['## Your tools', head, ...lines].join('\n');
}

/** How the calls of one turn run (tools/tool-dispatch: concurrency-safe calls together, the rest in order). */
export const PARALLEL_BLOCK =
  '## Calls in one turn\nSeveral tool calls in one turn run at the same time when each is concurrency-safe (reads, searches, fetches, task; docs/agents.md lists which); the others run in order. When you need several independent facts, ask for them in one turn.';

/**
 * The final system prompt of a model-backed run: the agent's instructions, then the parts its
 * `promptParts` turn on: the parent agent's standing instructions (a role with
 * `parentInstructions`), its tools, how calls of one turn run, the configuration block and the
 * About block. A pipeline (ship) sends no prompt to a model; asking for one is a programming error.
 */
export function buildSystemPrompt(definition: AgentDefinition, profile: Profile, context: { parent?: AgentDefinition } = {}): string {
  if (definition.prompt === undefined) {
    throw new AgentsError('pipeline_has_no_prompt', `${definition.id} is a pipeline: it starts child runs and has no prompt of its own`);
  }
  const parts = definition.promptParts ?? {};
  const parent = parts.parentInstructions ? context.parent?.prompt : undefined;
  return [
    definition.prompt,
    ...(parent ? [`## The standing instructions of the agent that started you (${context.parent!.displayName})\n${parent}`] : []),
    ...(parts.tools !== false
      ? [
          renderToolsBlock(
            profile.tools,
            (profile.mcp?.servers ?? []).map((entry) => entry.server),
          ),
        ]
      : []),
    ...(parts.parallel ? [PARALLEL_BLOCK] : []),
    ...(parts.configuration !== false ? [renderConfigBlock(profile)] : []),
    ...(parts.about !== false ? [renderAboutBlock(definition, profile)] : []),
  ].join('\n\n');
}

function machineWords(profile: Profile): string {
  if (profile.machine === 'none') return 'none (no workspace, no shell)';
  if (profile.machine === 'repo-cold') return 'repo-cold (a fresh sandbox for this thread; clone the repository yourself)';
  return "repo-resident (the repository's warm sandbox)";
}

function identityWords(profile: Profile): string {
  if (profile.identity === 'none') return 'none (no GitHub token)';
  if (profile.identity === 'read') return 'read-scoped (clone and read; never push or write)';
  return 'write-scoped';
}
