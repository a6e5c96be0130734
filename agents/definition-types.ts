// The surfaces a definition may be offered on, below both the definition (./definition, which
// workflow code loads) and its schema (./definition-schema, which loads zod), so neither imports
// the other's values. The lists the profile carries (machine, identity, effort, cache TTL, result
// shape) are in workflows/contracts/profile.ts, which both import as well.

export const SURFACES = ['slack', 'github', 'http', 'mcp', 'cli'] as const;

export type Surface = (typeof SURFACES)[number];
