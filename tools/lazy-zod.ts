import type { z as Zod } from 'zod';

let loaded: typeof Zod | undefined;

/**
 * zod, loaded on first use. Every workflow in a worker evaluates the bundle's modules for itself
 * (reuseV8Context gives each its own module cache), and evaluating zod was most of that: ~20 ms of
 * CPU and most of the live heap of every new thread and run, none of which reads a schema
 * (docs/performance.md). Tool files build their schemas inside `input: () => …` through this
 * proxy, so zod loads only when a schema is first read: a tool call's validation, never a
 * thread or a run's first model turn (those read the generated JSON schemas).
 */
export const z: typeof Zod = new Proxy({} as typeof Zod, {
  get(_target, key) {
    // A require, not an import: an import is evaluated when this module loads, which is what this avoids.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded ??= (require('zod') as { z: typeof Zod }).z;
    return (loaded as unknown as Record<PropertyKey, unknown>)[key];
  },
});
