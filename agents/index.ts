// The pure surface of agents/: safe for workflow code (no I/O, no clocks, no randomness).
// The custom-agents loader reads files: import it by path (agents/custom-agents), never from here.
export * from './definition';
// Types only: the config's zod schemas load zod, which workflow code must not evaluate (tools/lazy-zod.ts);
// parse and default a config through agents/config itself.
export type { AgentsConfig, AgentsConfigInput, PersonGrant, ChannelSettings, EntrySettings } from './config';
export * from './catalog';
export * from './directives';
export * from './profile';
export * from './delegation';
export * from './complementary';
export * from './routing';
export * from './access';
export * from './model-choice';
export * from './spend-caps';
export * from './prompt';
export * from './errors';
export { BUILTIN_AGENTS, BUILTIN_ROLES, DETACH_RECIPE } from './builtins';
export * from './admission';
export * from './github-roles';
export * from './mcp';
export * from './board';
export * from './commands';
export { REDACTED, redactShapes } from './secret-shapes';
