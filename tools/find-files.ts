import { z } from './lazy-zod';
import { defineTool } from './tool';

export const findFilesTool = defineTool({
  name: 'find_files',
  description: 'List workspace files whose path matches a glob, newest first.',
  input: () =>
    z
      .object({
        glob: z.string().min(1).describe('Glob to match against paths relative to the workspace root, e.g. "src/**/*.test.ts".'),
        maxResults: z.number().int().min(1).max(2_000).optional().describe('Stop after this many paths (default 200).'),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
