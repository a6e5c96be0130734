import { z } from './lazy-zod';
import { defineTool } from './tool';

export const grepTool = defineTool({
  name: 'grep',
  description: "Search the workspace's files for a regular expression and return matching lines with paths and line numbers.",
  input: () =>
    z
      .object({
        pattern: z.string().min(1).describe('Regular expression (ripgrep syntax).'),
        path: z.string().optional().describe('Folder or file to search, relative to the workspace root (default: the root).'),
        glob: z.string().optional().describe('Only search files whose path matches this glob, e.g. "*.ts".'),
        maxResults: z.number().int().min(1).max(1_000).optional().describe('Stop after this many matching lines (default 200).'),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
