import { z } from './lazy-zod';
import { defineTool } from './tool';

export const writeFileTool = defineTool({
  name: 'write_file',
  description: "Create or replace a text file in the run's workspace with the given content.",
  input: () =>
    z
      .object({
        path: z.string().min(1).describe('Path inside the workspace, relative to its root; parent folders are created.'),
        content: z.string().describe('The whole new content of the file.'),
      })
      .strict(),
  sideEffect: 'write',
  publishes: false,
  concurrencySafe: false,
  executor: 'activity',
});
