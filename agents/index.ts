// The pure surface of agents/: safe for workflow code (no I/O, no clocks, no randomness).
// The custom-agents loader reads files and is imported by path from './custom-agents'.
export * from './definition';
export * from './config';
export * from './catalog';
export * from './directives';
export * from './profile';
export * from './delegation';
export * from './routing';
export * from './access';
export * from './prompt';
export * from './errors';
export { BUILTIN_AGENTS, BUILTIN_ROLES, DETACH_RECIPE } from './builtins';
