// The pure surface of tools/: schemas, toolsets, JSON schemas for models. Safe to import
// from workflow code (no I/O, no clocks, no randomness).
export * from './tool';
export * from './registry';
export * from './toolsets';
export * from './availability';
export { BASH_OUTPUT_LIMIT, BASH_TIMEOUT_DEFAULT_MS, BASH_TIMEOUT_MAX_MS } from './bash';
export { findingSchema } from './submit-review';
export { dispositionProblems, type DispositionInput } from './submit-dispositions';
