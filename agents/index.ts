// The pure surface of agents/: safe for workflow code (no I/O, no clocks, no randomness).
// The custom-agents loader reads files: import it by path (agents/custom-agents), never from here.
export * from './definition';
export * from './config';
export * from './catalog';
export * from './directives';
export * from './profile';
export * from './delegation';
export * from './routing';
export * from './access';
export * from './model-choice';
export * from './prompt';
export * from './errors';
export { BUILTIN_AGENTS, BUILTIN_ROLES, DETACH_RECIPE } from './builtins';
