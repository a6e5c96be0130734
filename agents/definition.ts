import type { AgentDefinition, AgentDefinitionInput } from './definition-schema';
import { SURFACES } from './definition-types';
import { isMcpEntry } from './mcp-names';
import { toolsetTools } from '../tools/toolsets';

export type { AgentDefinition, AgentDefinitionInput } from './definition-schema';
export * from './definition-types';

/** Turns a minute the derived turn guard allows: 120 minutes -> 720 turns. */
export const TURNS_PER_MINUTE = 6;

/** The toolset a definition names, or `custom` for one that lists its tools itself. */
export function toolsetName(definition: Pick<AgentDefinition, 'toolset' | 'tools'>): string {
  return definition.toolset ?? 'custom';
}

/**
 * The built-in tools a definition lists: its own `tools` (MCP entries apart, see agents/mcp.ts)
 * or its named toolset's (none for `inherit`: a role's inherited tools are its parent's).
 */
export function listedTools(definition: Pick<AgentDefinition, 'toolset' | 'tools'>): readonly string[] {
  if (definition.tools) return definition.tools.filter((name) => !isMcpEntry(name));
  return definition.toolset === undefined ? [] : toolsetTools(definition.toolset);
}

/** The turn guard a definition runs with: its own, or six turns per budget minute. */
export function turnGuardFor(
  definition: Pick<AgentDefinition, 'turnGuard' | 'budgetMinutes'>,
  budgetMinutes = definition.budgetMinutes,
): number {
  return definition.turnGuard ?? budgetMinutes * TURNS_PER_MINUTE;
}

/**
 * A built-in definition with its defaults filled, in the schema's field order. Not a parse: the
 * built-ins are code, checked against AgentDefinitionSchema by agents/builtins.test.ts, and
 * every workflow evaluates this module for itself (docs/performance.md), so it must not load
 * zod. Files from outside (custom agents) are parsed by the schema (agents/custom-agents.ts).
 */
export function defineAgent(input: AgentDefinitionInput): AgentDefinition {
  const filled: AgentDefinition = {
    kind: input.kind ?? 'agent',
    id: input.id,
    displayName: input.displayName,
    description: input.description,
    // The schema narrows a toolset name by its refinement; the built-ins' test parses them all.
    ...(input.toolset !== undefined ? { toolset: input.toolset as AgentDefinition['toolset'] } : {}),
    ...(input.tools !== undefined ? { tools: [...input.tools] } : {}),
    machine: input.machine ?? 'none',
    identity: input.identity ?? 'none',
    budgetMinutes: input.budgetMinutes,
    ...(input.turnGuard !== undefined ? { turnGuard: input.turnGuard } : {}),
    tokenCap: input.tokenCap,
    cacheTtl: input.cacheTtl ?? '5m',
    ...(input.model !== undefined ? { model: input.model } : {}),
    ...(input.effort !== undefined ? { effort: input.effort } : {}),
    ...(input.prompt !== undefined ? { prompt: input.prompt } : {}),
    ...(input.promptParts !== undefined ? { promptParts: { ...input.promptParts } } : {}),
    ...(input.pipeline !== undefined ? { pipeline: input.pipeline } : {}),
    routable: input.routable ?? false,
    selfServe: input.selfServe ?? true,
    ...(input.featureFlag !== undefined ? { featureFlag: input.featureFlag } : {}),
    surfaces: input.surfaces ? [...input.surfaces] : [...SURFACES],
    conversation: input.conversation ?? 'fresh',
    ...(input.complementary ? { complementary: true } : {}),
    result: input.result ?? 'answer',
  };
  return filled;
}
