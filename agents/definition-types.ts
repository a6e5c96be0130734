// The enumerations a definition's fields take, below both the definition (./definition, which
// workflow code loads) and its schema (./definition-schema, which loads zod): each imports them
// from here, so neither imports the other's values.

export const MACHINES = ['none', 'repo-resident', 'repo-cold'] as const;
export const IDENTITIES = ['none', 'read', 'write'] as const;
export const EFFORTS = ['low', 'medium', 'high'] as const;
export const SURFACES = ['slack', 'github', 'http', 'mcp', 'cli'] as const;
export const CACHE_TTLS = ['5m', '1h'] as const;
/** What a role's answer to its parent is: its final text, or a command runner's report (agents/builtins/roles.ts `task`). */
export const RESULT_SHAPES = ['answer', 'command'] as const;

export type Machine = (typeof MACHINES)[number];
export type Identity = (typeof IDENTITIES)[number];
export type Effort = (typeof EFFORTS)[number];
export type Surface = (typeof SURFACES)[number];
export type CacheTtl = (typeof CACHE_TTLS)[number];
export type ResultShape = (typeof RESULT_SHAPES)[number];
