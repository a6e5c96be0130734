export * from './schema';
export * from './load';
export * from './secrets';
export * from './env-file';
export { ENVIRONMENT_BINDINGS } from './environment';
export * from './api-section';
export * from './admission-section';
