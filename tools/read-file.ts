import { z } from './lazy-zod';
import { defineTool } from './tool';

export const readFileTool = defineTool({
  name: 'read_file',
  description: "Read a text file from the run's workspace, optionally a range of lines. Binary files are refused as data.",
  input: () =>
    z
      .object({
        path: z.string().min(1).describe('Path inside the workspace, relative to its root.'),
        offset: z.number().int().min(1).optional().describe('First line to return, counting from 1.'),
        limit: z.number().int().min(1).max(5_000).optional().describe('How many lines to return (default 2000).'),
      })
      .strict(),
  sideEffect: 'read',
  publishes: false,
  concurrencySafe: true,
  executor: 'activity',
});
