import { z } from './lazy-zod';
import { defineTool } from './tool';

export const listDirectoryTool = defineTool({
  name: 'list_directory',
  description: 'List the entries of one workspace folder, marking folders with a trailing slash.',
  input: () =>
    z
      .object({
        path: z.string().optional().describe('Folder relative to the workspace root (default: the root).'),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
