import { z } from 'zod';
import { isToolsetName, TOOLSET_NAMES } from '../tools/toolsets';
import { isToolName } from '../tools/registry';
import { CACHE_TTLS, EFFORTS, IDENTITIES, MACHINES, RESULT_SHAPES } from '../workflows/contracts/profile';
import { SURFACES } from './definition-types';
import { MCP_TOOL_ENTRY } from './mcp-names';

// The definition's schema, for what comes from outside (custom agent files) and the tests that
// check the built-ins. Workflow code never imports this module: see defineAgent in ./definition.

/** Agent and role ids: lowercase, kebab-case, so they read well after `agent:`. */
export const AgentIdSchema = z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, 'lowercase letters, digits and hyphens, starting with a letter');

/** The toolset a definition holds: a named exact list, or `inherit` (a role takes its parent's tools). */
export const ToolsetReferenceSchema = z.string().refine((name) => name === 'inherit' || isToolsetName(name), {
  message: `a toolset name (${TOOLSET_NAMES.join(', ')}) or inherit`,
});

/** One entry of a definition's own tool list: a built-in tool, or an MCP server's tool (`mcp__<server>__<tool>`, `*` for all). */
export const ToolEntrySchema = z.string().refine((name) => isToolName(name) || MCP_TOOL_ENTRY.test(name), {
  message: 'a built-in tool name (docs/agents.md, Tools) or mcp__<server>__<tool> (or mcp__<server>__*)',
});

/** Which blocks are appended to a definition's own prompt (agents/prompt.ts renders them). */
export const PromptPartsSchema = z
  .object({
    tools: z.boolean().optional().describe('The "Your tools" block: each held tool with its purpose (default on).'),
    configuration: z.boolean().optional().describe('The configuration block: model, effort, budget and what set each (default on).'),
    about: z.boolean().optional().describe('The About block: what Switchboard is and how this run sits in it (default on).'),
    parallel: z
      .boolean()
      .optional()
      .describe('How calls of one turn run: concurrency-safe calls together, the rest in order (default off).'),
    parentInstructions: z
      .boolean()
      .optional()
      .describe("Role only: the standing instructions of the parent run's agent follow its own prompt (default off)."),
  })
  .strict();

/**
 * One agent or specialist role, as data. `kind: agent` is chosen by `agent:<name>` or the
 * router; `kind: role` is reached only through a run's `task` tool. The two kinds are
 * separate namespaces (see docs/agents.md, "Two namespaces").
 */
export const AgentDefinitionSchema = z
  .object({
    kind: z
      .enum(['agent', 'role'])
      .default('agent')
      .describe('agent: chosen by agent:<name> or the router; role: reached through the task tool.'),
    id: AgentIdSchema.describe("The name after agent: (or the task tool's agent_type for a role)."),
    displayName: z.string().min(1).describe('What people see, e.g. "Explore".'),
    description: z.string().min(1).describe('What the router and the catalog read: when to use it and what it cannot do.'),
    toolset: ToolsetReferenceSchema.optional().describe(
      'The exact tool list by name: a toolset, or inherit for a role. Give this or tools.',
    ),
    tools: z
      .array(ToolEntrySchema)
      .optional()
      .describe(
        "The exact tool list, tool by tool (built-in names and mcp__<server>__<tool>); for a role, intersected with the parent's tools. Give this or toolset.",
      ),
    machine: z
      .enum(MACHINES)
      .default('none')
      .describe('none: no workspace; repo-resident: a warm per-repository sandbox; repo-cold: a fresh sandbox per thread.'),
    identity: z.enum(IDENTITIES).default('none').describe('Scope of the GitHub token the sandbox and GitHub activities receive.'),
    budgetMinutes: z
      .number()
      .int()
      .min(1)
      .max(24 * 60)
      .describe('Wall-clock budget of one run, in minutes.'),
    turnGuard: z.number().int().min(1).optional().describe('Most model turns per run; derived from the budget at six a minute unless set.'),
    tokenCap: z.number().int().min(1_024).describe('Output tokens allowed per model call.'),
    cacheTtl: z
      .enum(CACHE_TTLS)
      .default('5m')
      .describe(
        'The longest prompt-cache lifetime its runs may write with: 1h lets a run write for an hour when it is about to wait (docs/models.md).',
      ),
    model: z.string().min(1).optional().describe('Model id; absent means the config layers decide.'),
    effort: z.enum(EFFORTS).optional().describe('Reasoning effort; absent means the config layers decide.'),
    prompt: z.string().min(1).optional().describe('The standing instructions; absent only for a pipeline.'),
    promptParts: PromptPartsSchema.optional().describe(
      'Which blocks follow the prompt (tools, configuration, about on; parallel, parentInstructions off).',
    ),
    pipeline: z.enum(['ship']).optional().describe('A pipeline agent starts child runs instead of sending a prompt to a model.'),
    routable: z.boolean().default(false).describe('May the router pick it without an agent: directive.'),
    selfServe: z.boolean().default(true).describe('May a self-serve MCP caller reach it (never, if it holds a shell).'),
    featureFlag: z.string().min(1).optional().describe('Active only when this flag is on in agents.featureFlags.'),
    surfaces: z
      .array(z.enum(SURFACES))
      .min(1)
      .default([...SURFACES])
      .describe('Where it may be used.'),
    conversation: z.enum(['fresh', 'inherited']).default('fresh').describe("Role only: start fresh, or from the parent's conversation."),
    complementary: z
      .boolean()
      .optional()
      .describe(
        "Role only: runs on a model of another family than its parent's (agents.entries.<id>.complementary), and is not offered when none is configured.",
      ),
    result: z
      .enum(RESULT_SHAPES)
      .default('answer')
      .describe(
        "Role only: answer (its final text goes back to the parent) or command (one line when its last command succeeded, that command's whole output when it failed).",
      ),
  })
  .strict()
  .superRefine((definition, context) => {
    if (definition.pipeline === undefined && definition.prompt === undefined) {
      context.addIssue({ code: 'custom', path: ['prompt'], message: 'a prompt is required unless the agent is a pipeline' });
    }
    if (definition.pipeline !== undefined && definition.prompt !== undefined) {
      context.addIssue({ code: 'custom', path: ['prompt'], message: 'a pipeline has no prompt of its own' });
    }
    if ((definition.toolset === undefined) === (definition.tools === undefined)) {
      context.addIssue({ code: 'custom', path: ['toolset'], message: 'give exactly one of toolset and tools' });
    }
    if (definition.kind === 'agent' && definition.toolset === 'inherit') {
      context.addIssue({ code: 'custom', path: ['toolset'], message: "only a role inherits its parent's tools" });
    }
    if (definition.kind === 'agent' && definition.conversation === 'inherited') {
      context.addIssue({ code: 'custom', path: ['conversation'], message: "only a role inherits its parent's conversation" });
    }
    if (definition.kind === 'agent' && definition.promptParts?.parentInstructions) {
      context.addIssue({ code: 'custom', path: ['promptParts', 'parentInstructions'], message: 'only a role has a parent' });
    }
    if (definition.kind === 'agent' && definition.result !== 'answer') {
      context.addIssue({ code: 'custom', path: ['result'], message: 'only a role answers a parent' });
    }
    if (definition.kind === 'agent' && definition.complementary) {
      context.addIssue({ code: 'custom', path: ['complementary'], message: "only a role runs beside a parent's model" });
    }
    if (definition.kind === 'role' && definition.pipeline !== undefined) {
      context.addIssue({ code: 'custom', path: ['pipeline'], message: 'a role cannot be a pipeline' });
    }
  });

export type AgentDefinitionInput = z.input<typeof AgentDefinitionSchema>;
export type AgentDefinition = z.output<typeof AgentDefinitionSchema>;
