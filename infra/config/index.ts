export * from './schema';
export * from './load';
export * from './secrets';
export { ENVIRONMENT_BINDINGS } from './environment';
export * from './api-section';
export * from './admission-section';
